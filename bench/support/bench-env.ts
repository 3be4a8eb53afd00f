import { z } from "zod";

/** A positive whole-number knob with its default. */
export const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** A bench's BENCH_* knobs, read once from the environment (empty values count as unset). */
export function readBenchEnv<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> {
  const present = Object.fromEntries(Object.entries(env).filter(([name, value]) => name.startsWith("BENCH_") && value));
  return schema.parse(present);
}
