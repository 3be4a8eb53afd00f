import type { Redactor } from "../secrets/redactor.js";
import type { OutputValidator } from "./output-schema.js";
import type { DoneRequest, DoneVerdict } from "./tool-calls.js";

/**
 * What a done call means: success with a valid output, giving up, or (while corrections are
 * left) the schema errors sent back so the model can fix its output.
 */
export function judgeDoneCall(
  done: DoneRequest,
  validator: OutputValidator | null,
  corrections: number,
  maxCorrections: number,
  redactor: Redactor,
): DoneVerdict {
  const text = done.text === null ? null : redactor.redact(done.text);
  // Without a schema a plain-text answer is a fine output for a finished task.
  const textAsOutput = done.success && validator === null && done.output === null;
  const output = redactor.redactValue(textAsOutput ? text : done.output);
  const check = validator === null ? ({ ok: true } as const) : validator.check(output);
  if (!done.success) {
    return {
      kind: "final",
      answer: { output: check.ok ? output : null, isTaskSuccessful: false, failureKind: "agent_gave_up", summary: `Gave up: ${text ?? "the task could not be completed"}` },
    };
  }
  if (check.ok) {
    return { kind: "final", answer: { output, isTaskSuccessful: true, failureKind: null, summary: text ?? "Task completed" } };
  }
  if (corrections < maxCorrections) {
    const left = maxCorrections - corrections;
    return {
      kind: "retry",
      feedback: `Error: the output does not match the output schema: ${check.errors}. Call done again with a corrected output (${left} ${left === 1 ? "attempt" : "attempts"} left).`,
    };
  }
  return {
    kind: "final",
    answer: { output: null, isTaskSuccessful: false, failureKind: "output_schema_mismatch", summary: `Stopped: the output does not match the output schema (${check.errors})` },
  };
}
