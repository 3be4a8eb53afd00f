/** A sleep that `interrupt()` ends early: loops that wait between rounds stop at once on close. */
export class InterruptibleSleep {
  private wake: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  interrupt(): void {
    this.wake?.();
  }
}
