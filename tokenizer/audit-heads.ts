// The newest head of each tenant's audit trail this tokenizer knows committed (told by the api after an append, read
// under the head's lock, or signed in a checkpoint), kept in audit-heads.json beside the keyring so that it survives
// restarts. Whoever writes the database can delete a trail's last events and move its head back: every link left
// still holds. This file is what remembers the longer trail: the tokenizer refuses to link from, or sign, a head
// older than the one it holds (FAILED_PRECONDITION: the trail was cut), and AuditVerify reports a stored trail that
// ends before it. Keyed by tenant and a hash of its salt: another database's tenant of the same id is another trail.
import { hash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { writePrivateFile } from './keyring-file.js';

export const AUDIT_HEADS_FILE = 'audit-heads.json';
/**
 * Changes reach the disk this long after the first one at most (one write, fsynced, for all of them). A save (a new
 * file, its fsync, the rename, the directory's fsync) costs the process about 1.8 ms of CPU, and under load a head
 * changes with every batch: at 20 ms that was up to 50 saves a second. The heads it saves already reach it up to
 * 200 ms after their append (the api's report); a tokenizer killed outright forgets at most this much more.
 */
const SAVE_AFTER_MS = 100;


export interface KnownHead {
  seq: number;
  link: Buffer;
}

/** A head older than the one this tokenizer knows committed: events were removed from the trail's end. */
export class AuditCutError extends Error {
  override name = 'AuditCutError';
}

/** A head this tokenizer cannot recompute (no proof, or one that does not hold): a link forged in the database. */
export class AuditBrokenError extends AuditCutError {
  override name = 'AuditBrokenError';
}

/** Run ends this tokenizer linked, kept per tenant (in memory): heads it extends without a proof. */
const MADE_KEPT = 16;

type Stored = Record<string, { seq: number; link: string }>;

export class AuditHeads {
  private readonly heads = new Map<string, KnownHead>();
  private readonly made = new Map<string, KnownHead[]>();
  private timer: NodeJS.Timeout | undefined;
  /** The write in flight (off the event loop's back: a link call never waits on the disk). */
  private writing: Promise<void> | undefined;
  private closed = false;
  readonly file: string;

  constructor(
    keyringFile: string,
    private readonly log: Logger,
  ) {
    this.file = join(dirname(keyringFile), AUDIT_HEADS_FILE);
    for (const [key, h] of Object.entries(this.read())) this.heads.set(key, { seq: h.seq, link: Buffer.from(h.link, 'hex') });
  }

  private read(): Stored {
    if (!existsSync(this.file)) return {};
    const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { v?: number; heads?: Stored };
    if (parsed.v !== 1 || typeof parsed.heads !== 'object' || parsed.heads === null) throw new Error(`${this.file} is not an audit heads file`);
    return parsed.heads;
  }

  private static key(tenantId: number, salt: Buffer): string {
    return `${tenantId}/${hash('sha256', salt, 'hex').slice(0, 16)}`;
  }

  get(tenantId: number, salt: Buffer): KnownHead {
    return this.heads.get(AuditHeads.key(tenantId, salt)) ?? { seq: 0, link: Buffer.alloc(0) };
  }

  /**
   * Throws AuditCutError when `seq` is before the known head. (A head of the same number with another link needs no
   * refusal here: nobody without the key makes a link, so AuditVerify finds that event's link broken.)
   */
  check(tenantId: number, salt: Buffer, seq: number): void {
    const known = this.get(tenantId, salt);
    if (seq < known.seq) throw new AuditCutError(`the audit trail was cut: its head is at ${seq}, but ${known.seq} was committed`);
  }

  /** Remembers the end of a run this tokenizer just linked: the next run may start from it without a proof. */
  linked(tenantId: number, salt: Buffer, seq: number, link: Buffer): void {
    const key = AuditHeads.key(tenantId, salt);
    const runs = this.made.get(key) ?? [];
    runs.push({ seq, link: Buffer.from(link) });
    if (runs.length > MADE_KEPT) runs.shift();
    this.made.set(key, runs);
  }

  /**
   * Whether this tokenizer vouches for `link` as the tenant's link at `seq` without recomputing it: the empty head
   * before the first event, the head it knows committed (linked or signed by it, or proven to it), or the end of a
   * run it linked itself.
   */
  vouches(tenantId: number, salt: Buffer, seq: number, link: Buffer): boolean {
    if (seq === 0) return link.length === 0;
    const known = this.get(tenantId, salt);
    if (known.seq === seq && known.link.equals(link)) return true;
    return (this.made.get(AuditHeads.key(tenantId, salt)) ?? []).some((h) => h.seq === seq && h.link.equals(link));
  }

  /** Checks `seq` as `check` does, then remembers (seq, link) when newer; saved to the file shortly after. */
  raise(tenantId: number, salt: Buffer, seq: number, link: Buffer): void {
    this.check(tenantId, salt, seq);
    if (seq === this.get(tenantId, salt).seq) return;
    this.heads.set(AuditHeads.key(tenantId, salt), { seq, link: Buffer.from(link) });
    this.timer ??= setTimeout(() => void this.saveSoon(), SAVE_AFTER_MS);
  }

  /** The file's heads with this process's newer ones (another tokenizer sharing the keyring may have written it). */
  private merged(): string {
    const merged: Stored = {};
    for (const [key, h] of Object.entries(this.read())) merged[key] = h;
    for (const [key, h] of this.heads) if (!merged[key] || merged[key].seq <= h.seq) merged[key] = { seq: h.seq, link: h.link.toString('hex') };
    return JSON.stringify({ v: 1, heads: merged });
  }

  private failed(err: unknown): void {
    this.log.error({ err: { type: (err as Error).name, code: (err as NodeJS.ErrnoException).code } }, 'audit heads not saved: tried again at the next change');
  }

  /** One asynchronous write at a time: a new file written and fsynced, renamed into place, its directory fsynced. */
  private async saveSoon(): Promise<void> {
    this.timer = undefined;
    await this.writing;
    const write = (this.writing = (async () => {
      const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      const fh = await open(tmp, 'wx', 0o600);
      try {
        await fh.writeFile(this.merged());
        await fh.sync();
      } finally {
        await fh.close();
      }
      // Closed meanwhile: close() wrote everything, this write's older copy must not land over it.
      if (this.closed) {
        await rm(tmp, { force: true });
        return;
      }
      await rename(tmp, this.file);
      const dir = await open(dirname(this.file), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    })().catch((err: unknown) => this.failed(err)));
    await write;
    if (this.writing === write) this.writing = undefined;
  }

  /** Writes the heads now, synchronously (at shutdown, and in tests). */
  save(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      writePrivateFile(this.file, this.merged(), 'replace');
    } catch (err) {
      this.failed(err);
    }
  }

  /** Saves what is pending (at shutdown), and what a write still in flight holds: the process may end before it lands. */
  close(): void {
    if (this.timer || this.writing) this.save();
    this.closed = true;
  }
}
