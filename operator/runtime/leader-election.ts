// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: a candidate takes the
// Lease when it is free or its holder has not renewed it for leaseDuration (measured on our own clock from when we
// last saw it change, so clock skew between nodes does not matter); the leader renews it every retryPeriod and
// steps down if it cannot renew within renewDeadline. Writes carry the resourceVersion read, so of two candidates
// racing for the Lease exactly one succeeds. On shutdown the leader releases the Lease so another takes over at once.
import type { Logger } from 'pino';
import { apiMessage, apiStatus, k8s, type Kube } from '../kube.js';
import type { Clock } from './clock.js';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface LeaderCallbacks {
  onStartedLeading(): Promise<void> | void;
  /** Called when leadership is lost or released; the caller must stop reconciling before it resolves. */
  onStoppedLeading(): Promise<void> | void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export class LeaderElector {
  private leading = false;
  private observed: { holder: string; renewTime: string } | undefined;
  private observedAt = 0;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly kube: Kube,
    private readonly opts: LeaderElectionOptions,
    private readonly callbacks: LeaderCallbacks,
    private readonly log: Logger,
    /** Lease times, when the Lease was last seen to change, and when a renewal is overdue. */
    private readonly clock: Clock,
  ) {}

  isLeader(): boolean {
    return this.leading;
  }

  run(): void {
    this.loop ??= this.campaign();
  }

  /** Stops campaigning; a leader stops leading (the callback runs) and releases the Lease. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async campaign(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      if (!(await this.tryAcquireOrRenew())) {
        await sleep(this.opts.retryPeriodMs, signal);
        continue;
      }
      this.leading = true;
      this.log.info({ lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity }, 'became leader');
      await this.callbacks.onStartedLeading();
      let lastRenew = this.clock.now();
      while (!signal.aborted) {
        await sleep(this.opts.retryPeriodMs, signal);
        if (signal.aborted) break;
        if (await this.tryAcquireOrRenew()) {
          lastRenew = this.clock.now();
        } else if (this.clock.now() - lastRenew >= this.opts.renewDeadlineMs || this.heldByOther()) {
          break;
        }
      }
      this.leading = false;
      this.log.info({ identity: this.opts.identity }, signal.aborted ? 'stepping down' : 'lost the leader lease');
      await this.callbacks.onStoppedLeading();
      if (signal.aborted) await this.release();
    }
  }

  private heldByOther(): boolean {
    return this.observed !== undefined && this.observed.holder !== '' && this.observed.holder !== this.opts.identity;
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.opts;
    const durationSeconds = Math.ceil(this.opts.leaseDurationMs / 1000);
    try {
      let lease: k8s.V1Lease;
      try {
        lease = await this.kube.coordination.readNamespacedLease({ namespace, name });
      } catch (err) {
        if (apiStatus(err) !== 404) throw err;
        const now = new k8s.V1MicroTime(this.clock.now());
        await this.kube.coordination.createNamespacedLease({
          namespace,
          body: { metadata: { name, namespace }, spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 } },
        });
        this.see(identity, now.toISOString());
        return true;
      }
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      // client-node hands MicroTime fields back as the strings the server sent.
      this.see(holder, String(spec.renewTime ?? ''));
      const expired = this.clock.now() > this.observedAt + (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (holder !== '' && holder !== identity && !expired) return false;
      // The times written are those of the decision, read after the Lease came back, never before the read.
      const now = new k8s.V1MicroTime(this.clock.now());
      const transitions = (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1);
      await this.kube.coordination.replaceNamespacedLease({
        namespace,
        name,
        body: {
          metadata: { name, namespace, resourceVersion: lease.metadata?.resourceVersion },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: holder === identity && spec.acquireTime ? spec.acquireTime : now,
            renewTime: now,
            leaseTransitions: transitions,
          },
        },
      });
      this.see(identity, now.toISOString());
      return true;
    } catch (err) {
      // 409: someone else wrote first. Anything else: we cannot tell, so we do not lead.
      if (apiStatus(err) !== 409) this.log.warn({ err: apiMessage(err) }, 'leader election: lease not reachable');
      return false;
    }
  }

  private see(holder: string, renewTime: string): void {
    if (this.observed?.holder !== holder || this.observed.renewTime !== renewTime) {
      this.observed = { holder, renewTime };
      this.observedAt = this.clock.now();
    }
  }

  /** Gives the Lease up, so a standby need not wait for it to expire. */
  private async release(): Promise<void> {
    const { namespace, name, identity } = this.opts;
    try {
      const lease = await this.kube.coordination.readNamespacedLease({ namespace, name });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = new k8s.V1MicroTime(this.clock.now());
      await this.kube.coordination.replaceNamespacedLease({
        namespace,
        name,
        body: {
          metadata: { name, namespace, resourceVersion: lease.metadata?.resourceVersion },
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
        },
      });
      this.log.info({ identity }, 'released the leader lease');
    } catch (err) {
      this.log.warn({ err: apiMessage(err) }, 'could not release the leader lease');
    }
  }
}
