import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";
import type { Redactor } from "../secrets/redactor.js";

export type { Logger };

export interface LoggerOptions {
  level: LevelWithSilent;
  /** Consulted for every line, because the secrets change with each task. */
  redactor: () => Redactor;
  destination?: DestinationStream;
}

/** JSON lines to stdout; every line passes the redactor after serialisation, so no field escapes it. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: "agent-pod" },
      hooks: { streamWrite: (line) => options.redactor().redactJsonText(line) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
