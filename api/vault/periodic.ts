// A background pass on a schedule (the sweeper, audit verification and checkpoints): at most one pass at a time in
// this process (a pass still running when the next tick comes is not stacked with another), and stop() waits for
// the pass under way.
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    /** Seconds between passes; 0 never starts. */
    private readonly seconds: number,
    private readonly pass: () => Promise<unknown>,
    /** A failed pass is reported here and tried again at the next tick. */
    private readonly failed: (err: unknown) => void,
  ) {}

  start(): void {
    if (!this.seconds || this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.pass()
        .catch(this.failed)
        .finally(() => (this.running = undefined));
    }, this.seconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
