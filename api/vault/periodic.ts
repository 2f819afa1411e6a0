// A background pass on a schedule (the sweeper, audit verification and checkpoints, the key rewrap, the legacy
// upgrade): at most one pass at a time in this process (a pass still running when the next tick comes, or when
// kicked, is not stacked with another), and stop() waits for the pass under way.
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    /** Seconds between passes; 0 never starts. */
    private readonly seconds: number,
    private readonly pass: () => Promise<unknown>,
    /** A failed pass is reported here and tried again at the next tick. */
    private readonly failed: (err: unknown) => void,
  ) {}

  start(): void {
    if (!this.seconds || this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.seconds * 1000);
    this.timer.unref();
  }

  /** Runs a pass now, unless one is running or the schedule has stopped. */
  kick(): void {
    if (this.running || this.stopped) return;
    this.running = this.pass()
      .catch(this.failed)
      .finally(() => (this.running = undefined));
  }

  /** True once stop() was called: a long pass checks it between its steps and ends early. */
  get stopping(): boolean {
    return this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
