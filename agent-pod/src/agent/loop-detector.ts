export type LoopVerdict = "ok" | "warn" | "give_up";

export interface LoopDetectorOptions {
  /** Failures of the same action (in the recent window) before the model is told. */
  warnAfter: number;
  /** Failures of the same action (in the recent window) before the task is given up. */
  giveUpAfter: number;
  /** How many recent actions are remembered. */
  window: number;
}

export const DEFAULT_LOOP_DETECTOR_OPTIONS: LoopDetectorOptions = { warnAfter: 3, giveUpAfter: 5, window: 20 };

/**
 * Spots the model repeating the same failing action, even with other actions in between.
 * An action is identified by its name and arguments; a success of the same action clears it.
 */
export class LoopDetector {
  private readonly recent: Array<{ signature: string; ok: boolean }> = [];

  constructor(private readonly options: LoopDetectorOptions = DEFAULT_LOOP_DETECTOR_OPTIONS) {}

  record(action: unknown, ok: boolean): LoopVerdict {
    const signature = signatureOf(action);
    if (ok) {
      for (const entry of this.recent) if (entry.signature === signature) entry.ok = true;
    }
    this.recent.push({ signature, ok });
    if (this.recent.length > this.options.window) this.recent.shift();
    if (ok) return "ok";
    const failures = this.recent.filter((entry) => entry.signature === signature && !entry.ok).length;
    if (failures >= this.options.giveUpAfter) return "give_up";
    if (failures >= this.options.warnAfter) return "warn";
    return "ok";
  }
}

/** Stable text for an action: keys sorted, so argument order does not matter. */
export function signatureOf(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}
