// The newest head of each tenant's audit trail this tokenizer knows committed (told by the api after an append, read
// under the head's lock, or signed in a checkpoint), kept in audit-heads.json beside the keyring so that it survives
// restarts. Whoever writes the database can delete a trail's last events and move its head back: every link left
// still holds. This file is what remembers the longer trail: the tokenizer refuses to link from, or sign, a head
// older than the one it holds (FAILED_PRECONDITION: the trail was cut), and AuditVerify reports a stored trail that
// ends before it. Keyed by tenant and a hash of its salt: another database's tenant of the same id is another trail.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { writePrivateFile } from './keyring-file.js';

export const AUDIT_HEADS_FILE = 'audit-heads.json';
/** Changes reach the disk this long after the first one at most (one write, fsynced, for all of them). */
const SAVE_AFTER_MS = 20;

export interface KnownHead {
  seq: number;
  link: Buffer;
}

/** A head older than the one this tokenizer knows committed: events were removed from the trail's end. */
export class AuditCutError extends Error {
  override name = 'AuditCutError';
}

type Stored = Record<string, { seq: number; link: string }>;

export class AuditHeads {
  private readonly heads = new Map<string, KnownHead>();
  private timer: NodeJS.Timeout | undefined;
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
    return `${tenantId}/${createHash('sha256').update(salt).digest('hex').slice(0, 16)}`;
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

  /** Checks `seq` as `check` does, then remembers (seq, link) when newer; saved to the file shortly after. */
  raise(tenantId: number, salt: Buffer, seq: number, link: Buffer): void {
    this.check(tenantId, salt, seq);
    if (seq === this.get(tenantId, salt).seq) return;
    this.heads.set(AuditHeads.key(tenantId, salt), { seq, link: Buffer.from(link) });
    this.timer ??= setTimeout(() => this.save(), SAVE_AFTER_MS);
  }

  /** Writes the heads now (a new file fsynced and renamed into place), merged with the file's: the newer of each. */
  save(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      const merged: Stored = {};
      for (const [key, h] of Object.entries(this.read())) merged[key] = h;
      for (const [key, h] of this.heads) if (!merged[key] || merged[key].seq <= h.seq) merged[key] = { seq: h.seq, link: h.link.toString('hex') };
      writePrivateFile(this.file, JSON.stringify({ v: 1, heads: merged }), 'replace');
    } catch (err) {
      this.log.error({ err: { type: (err as Error).name, code: (err as NodeJS.ErrnoException).code } }, 'audit heads not saved: tried again at the next change');
    }
  }

  /** Saves what is pending (at shutdown). */
  close(): void {
    if (this.timer) this.save();
  }
}
