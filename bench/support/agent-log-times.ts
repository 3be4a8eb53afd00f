// Milestones of an agent process, from the log lines the API collects: the runtime's own lines
// (`agent process started`) and each agent line it forwards, nested under `agent`.
import { z } from "zod";

const AgentLine = z.looseObject({ time: z.number(), msg: z.string().optional(), stepNumber: z.number().optional() });
const ApiLine = z.looseObject({
  time: z.number(),
  msg: z.string().optional(),
  sessionId: z.string().optional(),
  agent: z.unknown().optional(),
});

export interface AgentMilestone {
  /** Epoch ms, from the clock of the process that logged it. */
  time: number;
  msg: string;
  stepNumber?: number;
}

export function agentMilestones(logLines: readonly string[], sessionId: string): AgentMilestone[] {
  const milestones: AgentMilestone[] = [];
  for (const raw of logLines) {
    if (!raw.includes(sessionId)) continue;
    let line: z.infer<typeof ApiLine>;
    try {
      line = ApiLine.parse(JSON.parse(raw));
    } catch {
      continue;
    }
    if (line.sessionId !== sessionId) continue;
    if (line.msg !== "agent") {
      if (line.msg) milestones.push({ time: line.time, msg: `api: ${line.msg}` });
      continue;
    }
    const agent = AgentLine.safeParse(line.agent);
    if (agent.success && agent.data.msg) {
      milestones.push({ time: agent.data.time, msg: agent.data.msg, ...(agent.data.stepNumber === undefined ? {} : { stepNumber: agent.data.stepNumber }) });
    }
  }
  return milestones;
}

export function firstTime(milestones: readonly AgentMilestone[], msg: string): number | undefined {
  return milestones.find((m) => m.msg === msg)?.time;
}
