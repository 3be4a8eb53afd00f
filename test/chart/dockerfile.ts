import { readFileSync } from "node:fs";

/** Just enough of a Dockerfile reader to compare images with the chart and the build output. */
export interface Instruction {
  keyword: string;
  argument: string;
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  globalArgs: Map<string, string>;
  stages: Stage[];
}

function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.startsWith("#")) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(`${pending}${line}`.trim());
    pending = "";
  }
  if (pending !== "") lines.push(pending.trim());
  return lines;
}

export function readDockerfile(path: string): Dockerfile {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logicalLines(readFileSync(path, "utf8"))) {
    const [keywordText = "", ...rest] = line.split(/\s+/);
    const keyword = keywordText.toUpperCase();
    const argument = rest.join(" ");
    if (keyword === "FROM") {
      const [image = "", , name] = rest;
      stages.push({ name: name ?? String(stages.length), from: image, instructions: [] });
    } else if (stages.length === 0) {
      if (keyword === "ARG") {
        const [name = "", value = ""] = argument.split("=", 2);
        globalArgs.set(name, value);
      }
    } else {
      stages.at(-1)?.instructions.push({ keyword, argument });
    }
  }
  return { globalArgs, stages };
}

export function finalStage(dockerfile: Dockerfile): Stage {
  const stage = dockerfile.stages.at(-1);
  if (!stage) throw new Error("the Dockerfile has no stage");
  return stage;
}

/** The value of the last instruction with this keyword, or undefined. */
export function lastArgument(stage: Stage, keyword: string): string | undefined {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword).at(-1)?.argument;
}

/** ENV instructions of a stage in the KEY=VALUE form. */
export function environment(stage: Stage): Map<string, string> {
  const variables = new Map<string, string>();
  for (const instruction of stage.instructions.filter((candidate) => candidate.keyword === "ENV")) {
    for (const assignment of instruction.argument.split(/\s+/).filter(Boolean)) {
      const separator = assignment.indexOf("=");
      if (separator > 0) variables.set(assignment.slice(0, separator), assignment.slice(separator + 1));
    }
  }
  return variables;
}

/** The exec-form (JSON array) argument of CMD or ENTRYPOINT. */
export function execForm(stage: Stage, keyword: "CMD" | "ENTRYPOINT"): string[] {
  const argument = lastArgument(stage, keyword);
  if (argument === undefined) return [];
  const parsed: unknown = JSON.parse(argument);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === "string")) {
    throw new Error(`${keyword} is not in exec form: ${argument}`);
  }
  return parsed;
}

/** Destinations (relative to WORKDIR) that COPY --from=<stage> fills, keyed by destination. */
export function copiesFrom(stage: Stage, sourceStage: string): Map<string, string> {
  const copies = new Map<string, string>();
  for (const instruction of stage.instructions.filter((candidate) => candidate.keyword === "COPY")) {
    const parts = instruction.argument.split(/\s+/);
    if (parts[0] !== `--from=${sourceStage}`) continue;
    const [source = "", destination = ""] = parts.slice(1);
    copies.set(destination.replace(/\/$/, ""), source);
  }
  return copies;
}
