// A background job: a pass on a schedule (../periodic.ts: one pass at a time in this process, and stop() waits for
// the pass under way), started and stopped by the composition root, kicked when there is work to do now. A failed
// pass is logged and tried again at the next tick. Each job says only what its pass does.
import type { Logger } from 'pino';
import { Periodic } from '../periodic.js';

export abstract class Job {
  private readonly schedule: Periodic;
  private soon: NodeJS.Timeout | undefined;

  /** `what` names the job in the log line of a failed pass; every `seconds` (0: never on a schedule). */
  protected constructor(what: string, seconds: number, log: Logger) {
    this.schedule = new Periodic(seconds, () => this.pass(), (err: unknown) =>
      log.error({ err: { type: (err as Error).name, message: (err as Error).message } }, `${what} failed`),
    );
  }

  /** One pass of the job. */
  protected abstract pass(): Promise<unknown>;

  start(): void {
    this.schedule.start();
  }

  /** Runs a pass now unless one is running (or the job has stopped). */
  kick(): void {
    this.schedule.kick();
  }

  /** Kicks a pass `ms` from now, unless one is due already: what comes in meanwhile is gathered into that pass. */
  protected kickSoon(ms: number): void {
    if (this.soon || this.stopping) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.kick();
    }, ms);
    this.soon.unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.soon);
    this.soon = undefined;
    await this.schedule.stop();
  }

  /** True once stop() was called: a long pass checks it between its steps and ends early. */
  protected get stopping(): boolean {
    return this.schedule.stopping;
  }
}
