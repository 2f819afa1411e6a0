// Signed checkpoints of every tenant's audit head, kept outside the database: the tokenizer signs (tenant, seq,
// link, time) with its Ed25519 key; the api writes each as one JSON log line and, with a checkpoint directory, one
// line of `<dir>/tenant-<id>.jsonl`. A later rewrite of anything up to a checkpoint no longer matches its link.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { Periodic } from './periodic.js';
import type { Database } from '../store/database.js';
import { TokenizerRejectedError, type TokenizerClient } from '../tokenizer-client.js';
import { canonical } from './audit.js';
import { auditCheckpoints } from '../metrics.js';
import { checkpointKey, checkpointLine, checkpointSigned, parseCheckpoint, type CheckpointLine } from '../../proto/audit-checkpoint.js';

/** The file of a tenant's checkpoints in a checkpoint directory. */
export function checkpointFile(dir: string, tenantId: number): string {
  return join(dir, `tenant-${tenantId}.jsonl`);
}

export interface CheckpointOptions {
  seconds: number;
  events: number;
  dir: string | undefined;
}

export class AuditCheckpoints {
  /** Every `seconds` (0: never), a checkpoint of each tenant whose head moved. */
  private readonly schedule: Periodic;
  /** The newest head this process had signed, per tenant: an unchanged head is not signed again. */
  private readonly signed = new Map<number, { seq: number; link: Buffer }>();
  /** Events written by this process since its last checkpoint, per tenant. */
  private readonly pending = new Map<number, number>();
  private readonly inFlight = new Map<number, Promise<CheckpointLine | null>>();
  private key: KeyObject | undefined;

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly opts: CheckpointOptions,
  ) {
    this.schedule = new Periodic(opts.seconds, () => this.checkpointAll(), (err: unknown) => this.log.error({ err: { message: (err as Error).message } }, 'audit checkpoints failed'));
  }

  /** The checkpoint key's public half (PEM), as the tokenizer publishes it. */
  async publicKey(): Promise<string> {
    return (await this.tokenizer.keyringInfo()).audit_public_key;
  }

  /** Counts events appended; past `events` since the last checkpoint, the tenant's committed head is signed. */
  counted(tenantId: number, events: number): void {
    if (!this.opts.events) return;
    const n = (this.pending.get(tenantId) ?? 0) + events;
    this.pending.set(tenantId, n);
    if (n >= this.opts.events) void this.checkpoint(tenantId).catch(() => undefined);
  }

  start(): void {
    this.schedule.start();
  }

  async stop(): Promise<void> {
    await this.schedule.stop();
    await Promise.all(this.inFlight.values());
  }

  /** A checkpoint of every tenant whose head moved since this process last signed it. */
  async checkpointAll(): Promise<void> {
    for (const { id } of await this.db.globalStores().tenants.all()) await this.checkpoint(id).catch(() => undefined);
  }

  /** Signs the tenant's committed head and writes the checkpoint; null when the trail is empty or unchanged. */
  checkpoint(tenantId: number): Promise<CheckpointLine | null> {
    let run = this.inFlight.get(tenantId);
    if (!run) {
      run = this.checkpointNow(tenantId).finally(() => this.inFlight.delete(tenantId));
      this.inFlight.set(tenantId, run);
    }
    return run;
  }

  /** Tenants not to checkpoint now: those whose trail the legacy upgrade is about to re-chain (vault/legacy.ts). */
  skip: ((tenantId: number) => boolean) | undefined;

  private async checkpointNow(tenantId: number): Promise<CheckpointLine | null> {
    this.pending.set(tenantId, 0);
    if (this.skip?.(tenantId)) return null;
    await this.tokenizer.prepare(tenantId);
    const store = this.db.stores(tenantId).audit;
    const head = await store.head();
    const last = this.signed.get(tenantId);
    if (head.seq === 0 || (last?.seq === head.seq && last.link.equals(head.hash))) return null;
    const rows = await store.atAndBefore(head.seq);
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
    const line = checkpointLine({ tenant: tenantId, seq: signed.seq, link: signed.link, digest: signed.digest, time: signed.time }, signed.signature);
    // One structured line per checkpoint: whatever ships the log keeps a copy outside the database.
    this.log.info({ checkpoint: line }, 'audit checkpoint');
    if (this.opts.dir) {
      await mkdir(this.opts.dir, { recursive: true, mode: 0o700 });
      await appendFile(checkpointFile(this.opts.dir, tenantId), `${JSON.stringify(line)}\n`);
    }
    this.signed.set(tenantId, { seq: signed.seq, link: signed.link });
    auditCheckpoints.inc({ outcome: 'signed' });
    return line;
  }

  /**
   * The checkpoints this api can vouch for, oldest first: those in the checkpoint directory whose signature holds,
   * and the last one this process signed. What AuditVerify holds the stored trail against.
   */
  async known(tenantId: number): Promise<{ seq: number; link: Buffer }[]> {
    const out = new Map<number, Buffer[]>();
    const add = (seq: number, link: Buffer) => out.set(seq, [...(out.get(seq) ?? []), link]);
    if (this.opts.dir) {
      let text = '';
      try {
        text = await readFile(checkpointFile(this.opts.dir, tenantId), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      if (text) {
        this.key ??= checkpointKey(await this.publicKey());
        for (const lineText of text.split('\n')) {
          const c = parseCheckpoint(lineText);
          if (c && c.tenant === tenantId && checkpointSigned(this.key, c)) add(c.seq, Buffer.from(c.link, 'hex'));
        }
      }
    }
    const mine = this.signed.get(tenantId);
    if (mine) add(mine.seq, mine.link);
    return [...out].sort(([a], [b]) => a - b).flatMap(([seq, links]) => links.map((link) => ({ seq, link })));
  }
}
