// AES-GCM seals per master key version, against NIST SP 800-38D's limit of 2^32 random-nonce seals per key:
// counted, kept on disk beside the keyring, warned about as they near the setting, and rotated at it.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import client from 'prom-client';
import { registry } from './metrics.js';
import { writePrivateFile } from './keyring-file.js';

/** The default rotation point: a quarter of 2^32, far enough below that a lost count cannot reach the limit. */
export const DEFAULT_ROTATE_AFTER = 2 ** 30;
// Counts reach the disk every this many seals; a crash loses at most this many, so a restart adds it back.
const SAVE_EVERY = 2 ** 20;
// Rewrapping every key under the new version seals once per key: with more keys than the setting allows, each
// rotation would call for the next. One automatic rotation per interval at most; past that, a warning per call.
const MIN_AUTO_ROTATION_MS = 60 * 60 * 1000;

const sealsGauge = new client.Gauge({
  name: 'strongroom_tokenizer_seals_total',
  help: 'AES-GCM seals made under each master key version (tenant record keys and key wraps), across restarts.',
  labelNames: ['version'] as const,
  registers: [registry],
});

export class SealCounts {
  private readonly counts = new Map<number, number>();
  private readonly saved = new Map<number, number>();
  private warned = new Set<number>();
  private lastAutoRotation = -Infinity;

  constructor(
    private readonly file: string,
    readonly rotateAfter: number,
    private readonly log: Logger,
    /** Called once the active version reaches `rotateAfter`: rotates the keyring. */
    private readonly rotate: () => void,
    private readonly active: () => number,
  ) {
    let stored: Record<string, number> = {};
    try {
      stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
    } catch {
      // No file yet: a new keyring, or one from before counting began.
    }
    for (const [v, n] of Object.entries(stored)) {
      // Seals since the last save were not written down: assume the most that could have been lost.
      this.counts.set(Number(v), n + SAVE_EVERY);
      this.saved.set(Number(v), n + SAVE_EVERY);
      sealsGauge.set({ version: v }, n + SAVE_EVERY);
    }
  }

  get all(): Map<number, number> {
    return new Map(this.counts);
  }

  add(version: number, n: number): void {
    const total = (this.counts.get(version) ?? 0) + n;
    this.counts.set(version, total);
    sealsGauge.set({ version: String(version) }, total);
    if (total - (this.saved.get(version) ?? 0) >= SAVE_EVERY) this.save();
    if (version !== this.active()) return;
    if (total >= this.rotateAfter * 0.9 && !this.warned.has(version)) {
      this.warned.add(version);
      this.log.warn({ version, seals: total, rotateAfter: this.rotateAfter }, 'master key version nears its seal limit: it will rotate');
    }
    if (total >= this.rotateAfter) {
      if (Date.now() - this.lastAutoRotation < MIN_AUTO_ROTATION_MS) {
        this.log.warn({ version, seals: total }, 'master key version past its seal limit, rotated less than an hour ago: raise the setting above the number of keys');
        return;
      }
      this.lastAutoRotation = Date.now();
      this.log.warn({ version, seals: total }, 'master key version reached its seal limit: rotating');
      this.rotate();
    }
  }

  save(): void {
    const out: Record<string, number> = {};
    for (const [v, n] of this.counts) out[v] = n;
    writePrivateFile(this.file, `${JSON.stringify(out)}\n`, 'replace');
    for (const [v, n] of this.counts) this.saved.set(v, n);
  }
}
