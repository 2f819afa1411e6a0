// AES-GCM seals per master key version, against NIST SP 800-38D's limit of 2^32 random-nonce seals per key:
// counted by each tokenizer in a file of its own beside the keyring, summed over every tokenizer's file (replicas
// share the keyring), warned about as the sum nears the setting, and rotated at it.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import client from 'prom-client';
import { registry } from './metrics.js';
import { readOtherSeals, sumSeals, writeOwnSeals } from './seal-files.js';

/** The default rotation point: a quarter of 2^32, far enough below that a lost count cannot reach the limit. */
export const DEFAULT_ROTATE_AFTER = 2 ** 30;
// Own counts reach the disk every this many seals (and on a new version, on sync(), at close). A crash loses at
// most that many less one, which every reader adds back for a file not closed cleanly: at the default setting
// 2^20, a thousandth of it, per replica; with a tiny setting (tests) every seal is written at once.
const MAX_SAVE_EVERY = 2 ** 20;
// Rewrapping every key under the new version seals once per key: with more keys than the setting allows, each
// rotation would call for the next. One automatic rotation per interval at most; past that, a warning per call.
const MIN_AUTO_ROTATION_MS = 60 * 60 * 1000;

const sealsGauge = new client.Gauge({
  name: 'strongroom_tokenizer_seals_total',
  help:
    'AES-GCM seals made under each master key version (key wraps), by every tokenizer sharing this keyring and across ' +
    'restarts; each replica reports the same sum, so aggregate with max(), not sum().',
  labelNames: ['version'] as const,
  registers: [registry],
});

export interface SealCountsOptions {
  /** keyring.json's path: the count files sit beside it. */
  keyringFile: string;
  /** Keyring.id: only files written for this keyring count. */
  keyringId: string;
  rotateAfter: number;
  log: Logger;
  /**
   * Called when the sum for the active version reaches `rotateAfter`, with that version: rotates the keyring unless
   * its active version (read under the keyring's lock) is no longer `from`, in which case it only takes that one.
   */
  rotate: (from: number) => void;
  active: () => number;
  /** This process's id among the keyring's counters; random by default, new at every start. */
  instance?: string;
}

export class SealCounts {
  readonly instance: string;
  readonly rotateAfter: number;
  private readonly saveEvery: number;
  /** This process's own seals since it started: exact. */
  private readonly own = new Map<number, number>();
  private readonly saved = new Map<number, number>();
  /** Every other file's counts (with their unsaved margins) as last read. */
  private others = new Map<number, number>();
  private readonly reported = new Set<string>();
  private readonly warned = new Set<number>();
  private lastAutoRotation = -Infinity;
  private closed = false;

  constructor(private readonly opts: SealCountsOptions) {
    this.instance = opts.instance ?? randomBytes(8).toString('hex');
    this.rotateAfter = opts.rotateAfter;
    this.saveEvery = Math.min(MAX_SAVE_EVERY, Math.max(1, Math.floor(opts.rotateAfter / 1024)));
    this.refresh();
  }

  /** Seals per version over every tokenizer of this keyring, read afresh. */
  get all(): Map<number, number> {
    this.refresh();
    return this.sum();
  }

  /** Seals of this process alone. */
  get mine(): Map<number, number> {
    return new Map(this.own);
  }

  add(version: number, n: number): void {
    const mine = (this.own.get(version) ?? 0) + n;
    this.own.set(version, mine);
    this.closed = false;
    // A version's first seal is written at once, so that a crash can never hide a version from the others.
    if (!this.saved.has(version) || mine - this.saved.get(version)! >= this.saveEvery) {
      this.save();
      this.refresh();
    }
    const total = mine + (this.others.get(version) ?? 0);
    sealsGauge.set({ version: String(version) }, total);
    this.check(version, total);
  }

  /** Writes what changed and reads the others' files: the periodic timer's call, so an idle replica stays current. */
  sync(): void {
    if ([...this.own].some(([v, n]) => this.saved.get(v) !== n)) this.save();
    this.refresh();
    const active = this.opts.active();
    this.check(active, this.sum().get(active) ?? 0);
  }

  /** The last write of a clean stop: the file then says its counts are exact. */
  close(): void {
    this.closed = true;
    this.save();
  }

  private save(): void {
    writeOwnSeals(this.opts.keyringFile, {
      instance: this.instance,
      keyring: this.opts.keyringId,
      closed: this.closed,
      unsaved: this.saveEvery - 1,
      seals: this.own,
    });
    for (const [v, n] of this.own) this.saved.set(v, n);
  }

  private refresh(): void {
    const read = readOtherSeals(this.opts.keyringFile, this.opts.keyringId, this.instance);
    for (const path of read.unreadable) {
      if (this.reported.has(path)) continue;
      this.reported.add(path);
      this.opts.log.error({ file: path }, 'a seal count file cannot be read: its seals are not counted until it is fixed');
    }
    this.others = sumSeals(read.records);
    for (const [v, n] of this.sum()) sealsGauge.set({ version: String(v) }, n);
  }

  private sum(): Map<number, number> {
    return sumSeals([{ seals: this.own, unsaved: 0 }, { seals: this.others, unsaved: 0 }]);
  }

  private check(version: number, total: number): void {
    if (version !== this.opts.active()) return;
    const { log } = this.opts;
    const rotateAfter = this.rotateAfter;
    if (total >= rotateAfter * 0.9 && !this.warned.has(version)) {
      this.warned.add(version);
      log.warn({ version, seals: total, rotateAfter }, 'master key version nears its seal limit: it will rotate');
    }
    if (total < rotateAfter) return;
    if (Date.now() - this.lastAutoRotation < MIN_AUTO_ROTATION_MS) {
      log.warn({ version, seals: total }, 'master key version past its seal limit, rotated less than an hour ago: raise the setting above the number of keys');
      return;
    }
    log.warn({ version, seals: total }, 'master key version reached its seal limit: rotating');
    // Another replica that reached the limit together with this one may have rotated first: then `rotate` only
    // takes its new version. Either way the keyring rotated just now, which is what the hourly allowance is about.
    this.opts.rotate(version);
    this.lastAutoRotation = Date.now();
  }
}
