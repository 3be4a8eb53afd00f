/**
 * decisions.md: after `limit` failed authentications from one address within the window, every
 * request from that address answers 429 until the window passes. Valid keys from an address that
 * is not blocked are never limited. Kept per process: each replica limits on its own.
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the address may try again, or 0 when it is not blocked. */
  retryAfterSeconds(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.limit) return 0;
    const oldestCounted = recent[recent.length - this.limit] ?? this.now();
    return Math.max(1, Math.ceil((oldestCounted + this.windowMs - this.now()) / 1000));
  }

  recordFailure(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    this.failures.set(address, recent);
    if (this.failures.size > 100_000) this.prune();
  }

  private recent(address: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const kept = (this.failures.get(address) ?? []).filter((time) => time > cutoff);
    if (kept.length === 0) this.failures.delete(address);
    else this.failures.set(address, kept);
    return kept;
  }

  private prune(): void {
    for (const address of [...this.failures.keys()]) this.recent(address);
  }
}
