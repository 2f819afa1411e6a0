// Signed checkpoints of every tenant's audit head, kept outside the database: the tokenizer signs (tenant, seq,
// link, digest, time) with its Ed25519 key; the api writes each as one JSON log line and to its targets (a
// directory, an S3 bucket). A later rewrite of anything up to a checkpoint no longer matches its link.
// Elected: per tenant, only the replica holding the tenant's checkpoint lock signs, and the database keeps how far
// the trail is checkpointed (audit_checkpointed), so a head is signed once whichever replicas see it.
import { publishRows } from '../privacy/events.js';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { Periodic } from '../periodic.js';
import type { Database } from '../../store/database.js';
import type { CheckpointDistance } from '../../store/audit-checkpointed.js';
import { checkpointLock } from '../../store/locks.js';
import { TokenizerRejectedError, type TokenizerClient } from '../../tokenizer-client.js';
import { canonical } from './trail.js';
import { auditCheckpoints, auditCheckpointWriteFailures } from '../../metrics.js';
import { checkpointKey, checkpointLine, checkpointSigned, type CheckpointLine } from '../../../proto/audit-checkpoint.js';
import { DirectoryTarget, S3Target, type CheckpointTarget, type S3CheckpointSettings } from './checkpoint-targets.js';
import type { MigrationState } from '../events.js';
import type { CheckpointStamper } from './timestamps.js';

export interface CheckpointOptions {
  seconds: number;
  events: number;
  dir: string | undefined;
  s3?: S3CheckpointSettings | undefined;
  /** Stamps each checkpoint by an RFC 3161 authority, when one is configured (timestamps.ts). */
  stamper?: CheckpointStamper | undefined;
}

/** A checkpoint signed and logged, but not yet taken by every target. */
interface Unwritten {
  line: CheckpointLine;
  left: CheckpointTarget[];
}

export class CheckpointUnwrittenError extends Error {
  override name = 'CheckpointUnwrittenError';
}

// How often, in this process's events of a tenant, the database is asked how far the tenant's head is from its last
// checkpoint: a sixteenth of the cadence, so a checkpoint comes at most 1/16 of it late per replica, at one read
// per N/16 events.
const LOOKS_PER_CADENCE = 16;

export class AuditCheckpoints {
  /** Every `seconds` (0: never), a checkpoint of each tenant whose head moved. */
  private readonly schedule: Periodic;
  private readonly targets: CheckpointTarget[];
  /** The newest head this process signed, per tenant: one checkpoint AuditVerify may trust without reading any target. */
  private readonly signed = new Map<number, { seq: number; link: Buffer }>();
  /** Per tenant, a signed checkpoint some target failed to take: the next attempt writes it there, unless the head moved. */
  private readonly unwritten = new Map<number, Unwritten>();
  /** Events this process appended since it last asked the database whether a checkpoint is due, per tenant. */
  private readonly sinceLook = new Map<number, number>();
  private readonly lookEvery: number;
  private readonly inFlight = new Map<number, Promise<CheckpointLine | null>>();
  private key: KeyObject | undefined;

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly opts: CheckpointOptions,
    /** Tenants not to checkpoint now: those whose trail the legacy upgrade is about to re-chain (vault/jobs/legacy.ts). */
    private readonly migration?: MigrationState,
  ) {
    this.schedule = new Periodic(opts.seconds, () => this.checkpointAll(), (err: unknown) => this.log.error({ err: { message: (err as Error).message } }, 'audit checkpoints failed'));
    this.targets = [...(opts.dir ? [new DirectoryTarget(opts.dir)] : []), ...(opts.s3 ? [new S3Target(opts.s3, log)] : [])];
    this.lookEvery = Math.max(1, Math.ceil(opts.events / LOOKS_PER_CADENCE));
  }

  /** The checkpoint key's public half (PEM), as the tokenizer publishes it. */
  async publicKey(): Promise<string> {
    return (await this.tokenizer.keyringInfo()).audit_public_key;
  }

  /**
   * Told of events appended by this process. Whether a checkpoint is due is the database's answer: the distance from
   * the tenant's committed head to its last checkpoint, whichever replicas wrote the events between.
   */
  counted(tenantId: number, events: number): void {
    if (!this.opts.events) return;
    const n = (this.sinceLook.get(tenantId) ?? 0) + events;
    if (n < this.lookEvery) {
      this.sinceLook.set(tenantId, n);
      return;
    }
    this.sinceLook.set(tenantId, 0);
    this.checkpoint(tenantId, this.opts.events).catch(() => undefined);
  }

  start(): void {
    this.schedule.start();
  }

  async stop(): Promise<void> {
    await this.schedule.stop();
    await Promise.all(this.inFlight.values());
    for (const t of this.targets) t.close();
  }

  /** A checkpoint of every tenant whose head moved since its last checkpoint (failures are logged and counted). */
  async checkpointAll(): Promise<void> {
    // Replicas' timers keep their phase: a random pause (up to a third of the cadence) and order let each replica win
    // some tenants' elections, rather than the one whose timer fires first winning all of them, every time.
    await new Promise((r) => setTimeout(r, Math.random() * this.opts.seconds * 333));
    const tenants = (await this.db.global().tenants.all()).map((t) => t.id).sort(() => Math.random() - 0.5);
    for (const id of tenants) {
      await this.checkpoint(id).catch(() => undefined);
      // Checkpoints whose timestamp could not be had before (the authority was away).
      await this.opts.stamper?.stampPending(id).catch(() => undefined);
    }
  }

  /**
   * Signs the tenant's committed head and writes the checkpoint, if it moved since the last checkpoint (with
   * `events`, only once it is that many events past it). Null when it is not due, or another replica is
   * checkpointing the tenant now. Rejects when a target failed to take it.
   */
  checkpoint(tenantId: number, events = 0): Promise<CheckpointLine | null> {
    let run = this.inFlight.get(tenantId);
    if (!run) {
      run = this.checkpointNow(tenantId, events).finally(() => this.inFlight.delete(tenantId));
      this.inFlight.set(tenantId, run);
    }
    return run;
  }

  private async checkpointNow(tenantId: number, events: number): Promise<CheckpointLine | null> {
    if (this.migration?.isMigrating(tenantId)) return null;
    const store = this.db.stores(tenantId).auditCheckpointed;
    // Looked at first without the lock: a tenant whose head stayed put costs one read and no lock connection.
    if (!due(await store.distance(), events)) return null;
    const out = await this.db.tryExclusive(checkpointLock(tenantId), async () => {
      // Again under the lock: the replica that held it a moment ago may have checkpointed this very head.
      const d = await store.distance();
      if (!due(d, events)) return null;
      let pending = this.unwritten.get(tenantId);
      if (!pending || pending.line.seq !== d.head.seq || pending.line.link !== d.head.hash.toString('hex')) {
        const line = await this.sign(tenantId, d.head);
        // One structured line per checkpoint: whatever ships the log keeps a copy outside the database.
        this.log.info({ checkpoint: line }, 'audit checkpoint');
        pending = { line, left: [...this.targets] };
        this.unwritten.set(tenantId, pending);
      }
      await this.writeOut(pending);
      await store.mark(pending.line.seq, d.head.hash, pending.line.time);
      this.unwritten.delete(tenantId);
      // Kept in the database too, for the audit sinks, and stamped (a failure is retried by the next pass).
      await store.keep(pending.line, Math.floor(Date.now() / 1000));
      await this.opts.stamper?.stamp(tenantId, pending.line);
      // Recipients learn of it as of any privacy event (its digest is public: the chain's, not a link).
      const { seq, digest, time } = pending.line;
      await this.db.stores(tenantId).privacyEvents.publish(publishRows([{ type: 'audit.checkpoint', person: null, data: { seq, digest } }], time * 1000), time);
      return pending.line;
    });
    return out ?? null;
  }

  private async sign(tenantId: number, head: CheckpointDistance['head']): Promise<CheckpointLine> {
    await this.tokenizer.prepare(tenantId);
    const rows = await this.db.stores(tenantId).audit.atAndBefore(head.seq);
    const event = rows.find((r) => r.seq === head.seq);
    const before = head.seq === 1 ? { hash: Buffer.alloc(0), digest: Buffer.alloc(0) } : rows.find((r) => r.seq === head.seq - 1);
    let signed;
    try {
      // The tokenizer signs only a link it recomputes from the event: a head forged in the database is refused.
      if (!event || !before?.digest) throw new TokenizerRejectedError('SignCheckpoint', 'the head\'s event is missing');
      signed = await this.tokenizer.signCheckpoint(tenantId, {
        seq: head.seq,
        link: head.hash,
        previous: before.hash,
        canonical: canonical(event),
        digest: head.digest,
        previousDigest: before.digest,
      });
    } catch (err) {
      const refused = err instanceof TokenizerRejectedError;
      auditCheckpoints.inc({ outcome: refused ? 'refused' : 'failed' });
      if (refused) this.log.error({ tenantId, seq: head.seq }, 'audit head not checkpointed: it is not a link of the tenant\'s chain');
      else this.log.warn({ tenantId, err: { type: (err as Error).name } }, 'audit checkpoint failed');
      throw err;
    }
    this.signed.set(tenantId, { seq: signed.seq, link: signed.link });
    auditCheckpoints.inc({ outcome: 'signed' });
    return checkpointLine({ tenant: tenantId, seq: signed.seq, link: signed.link, digest: signed.digest, time: signed.time }, signed.signature);
  }

  /** Writes the checkpoint to every target still owed it; those that fail stay owed, logged and counted. */
  private async writeOut(pending: Unwritten): Promise<void> {
    const { tenant, seq } = pending.line;
    const failed: CheckpointTarget[] = [];
    for (const target of pending.left) {
      try {
        await target.write(pending.line);
      } catch (err) {
        failed.push(target);
        auditCheckpointWriteFailures.inc({ target: target.name });
        const e = err as NodeJS.ErrnoException;
        // The error's kind only: S3 and file system messages may carry paths, bucket names and request ids.
        this.log.error({ tenantId: tenant, seq, target: target.name, err: { type: e.name, code: e.code } }, 'audit checkpoint not written: tried again at the next tick');
      }
    }
    pending.left = failed;
    if (failed.length) throw new CheckpointUnwrittenError(`audit checkpoint not written to ${failed.map((t) => t.name).join(', ')}`);
  }

  /**
   * The checkpoints this api can vouch for, oldest first: those in its targets (directory, bucket) whose signature
   * holds, and the last one this process signed. What AuditVerify holds the stored trail against.
   */
  async known(tenantId: number): Promise<{ seq: number; link: Buffer }[]> {
    const out = new Map<number, Buffer[]>();
    const add = (seq: number, link: Buffer) => {
      const links = out.get(seq) ?? [];
      if (!links.some((l) => l.equals(link))) out.set(seq, [...links, link]);
    };
    for (const target of this.targets) {
      const lines = await target.read(tenantId);
      if (lines.length) this.key ??= checkpointKey(await this.publicKey());
      for (const c of lines) if (checkpointSigned(this.key!, c)) add(c.seq, Buffer.from(c.link, 'hex'));
    }
    const mine = this.signed.get(tenantId);
    if (mine) add(mine.seq, mine.link);
    return [...out].sort(([a], [b]) => a - b).flatMap(([seq, links]) => links.map((link) => ({ seq, link })));
  }
}

/**
 * True when the head is not the one last checkpointed (by sequence number or link) and the trail is not empty; with
 * `events`, only once the head is that many past it. A mark ahead of the head was moved by hand: due at once.
 */
function due(d: CheckpointDistance, events: number): boolean {
  const moved = d.head.seq > 0 && (d.head.seq !== d.checkpointed.seq || !d.head.hash.equals(d.checkpointed.link));
  const distance = d.head.seq - d.checkpointed.seq;
  return moved && (!events || distance >= events || distance < 0);
}
