// The versioned master keyring in memory: its key versions, the active one, rotation, the recovery key, and
// keyring.json shared by several tokenizers (replicas on one volume): every change is a locked read-merge-write of
// the file, and a changed file is reloaded.
import { randomBytes } from 'node:crypto';
import { combine } from 'shamir-secret-sharing';
import {
  KEY_BYTES,
  fileStamp,
  keyringIdOf,
  openRecoveryCopy,
  readKeyringFile,
  sealKeyringFile,
  withFileLock,
  writePrivateFile,
  type KeyringContents,
} from './keyring-file.js';
import { NoRecoveryKeyError, RecoveryError, parseShares, recoveryShares } from './recovery-shares.js';
import { asCustody, StaticCustody, type Custody } from './custody.js';

export { KEY_BYTES } from './keyring-file.js';
export { NoRecoveryKeyError, RecoveryError, SharesError, SHARES, THRESHOLD, parseShares, recoveryShares } from './recovery-shares.js';

const NO_RECOVERY_KEY = 'This keyring has no recovery key: issue one with `npm run keyring:init` while the vault is stopped';

/**
 * A version another tokenizer retired (gone from the file) stays in memory, for opening only, this long: a call of
 * this replica that read a key wrapped under it just before does not fail. Then it is zeroed.
 */
export const RETIRED_GRACE_MS = 5 * 60_000;

/** Why a reload happened, for the log and the metric. */
export type ReloadReason = 'unknown-version' | 'periodic' | 'info';

export interface ReloadResult {
  reloaded: boolean;
  /** Versions the file gained, and lost (kept RETIRED_GRACE_MS for opening), against memory. */
  added: number[];
  removed: number[];
}

export class Keyring {
  /** Versions gone from the file (retired by another tokenizer), kept for opening until `until`. */
  private readonly retiring = new Map<number, { key: Buffer; until: number }>();
  private lastUnknownReload = -Infinity;

  private keys: Map<number, Buffer>;
  private activeVersion: number;
  private recoveryKey: Buffer | undefined;
  /** The recovery copy as last read or written. */
  private recoverySealed: string | undefined;

  private constructor(
    readonly file: string,
    /** Who seals keyring.json: a static wrapping key, or an HSM key (tokenizer/custody.ts). */
    private custody: Custody,
    contents: KeyringContents,
    /** keyring.json's stamp when this process last read or wrote it. */
    private stamp: string | undefined,
  ) {
    this.keys = contents.keys;
    this.activeVersion = contents.active;
    this.recoveryKey = contents.recoveryKey;
    this.recoverySealed = contents.recoverySealed;
  }

  /** Where a development wrapping key lives, when that is where this keyring's key came from. */
  devKeyFile: string | undefined;

  /** Told when a version leaves memory for good, so that what was derived from it can be zeroed too. */
  onForget: (version: number) => void = () => {};

  get hasRecovery(): boolean {
    return this.recoveryKey !== undefined;
  }

  get active(): number {
    return this.activeVersion;
  }

  get versions(): number[] {
    return [...this.keys.keys()].sort((a, b) => a - b);
  }

  /**
   * A public name for this keyring, the same across restarts and rotations: a one-way hash of its first key
   * version, so a database can say which keyring it expects without holding anything secret.
   */
  get id(): string {
    return keyringIdOf(this.keys);
  }

  /** Which custody seals keyring.json now, described for logs (no PIN, no key). */
  get custodyKind(): Custody['kind'] {
    return this.custody.kind;
  }

  /** A version's key: one the file holds, or one retired elsewhere within its grace period. */
  key(version: number): Buffer | undefined {
    return this.keys.get(version) ?? this.retiring.get(version)?.key;
  }

  /**
   * A first key, and with `recoveryKey` its recovery copy, written together in one exclusive create: it refuses
   * if a keyring appeared meanwhile, so a keyring is never replaced.
   */
  static create(file: string, sealer: Custody | Buffer, recoveryKey?: Buffer): Keyring {
    const custody = asCustody(sealer);
    const keys = new Map([[1, randomBytes(KEY_BYTES)]]);
    const { text, recoverySealed } = sealKeyringFile(custody, { keys, active: 1, recoveryKey });
    writePrivateFile(file, text, 'create');
    return new Keyring(file, custody, { keys, active: 1, recoveryKey, recoverySealed }, fileStamp(file));
  }

  /** `sealer`: the custody that sealed it, or a static wrapping key. */
  static open(file: string, sealer: Custody | Buffer): Keyring {
    const custody = asCustody(sealer);
    const stamp = fileStamp(file);
    const read = readKeyringFile(file, custody);
    const keyring = new Keyring(file, custody, read, stamp);
    if (read.legacy) keyring.update((c) => c);
    return keyring;
  }

  /**
   * Adds a new master key version and makes it active for new writes; older versions still open. The number is
   * one past the file's newest (read under the lock), so two tokenizers rotating at once make two versions.
   */
  rotate(): number {
    let next = 0;
    this.update((c) => {
      next = Math.max(...c.keys.keys()) + 1;
      return { ...c, keys: new Map([...c.keys, [next, randomBytes(KEY_BYTES)]]), active: next };
    });
    return next;
  }

  /**
   * The automatic rotation at the seal limit: rotates only if the file's active version (read under the lock) is
   * still `from`. Replicas share the limit (their counts are summed), so several reach it together; the first to
   * take the lock rotates and the others find `from` no longer active and take the new version instead. Answers
   * the version made, or undefined when another tokenizer had rotated already.
   */
  rotateFrom(from: number): number | undefined {
    let next: number | undefined;
    this.update((c) => {
      if (c.active !== from) return c;
      next = Math.max(...c.keys.keys()) + 1;
      return { ...c, keys: new Map([...c.keys, [next, randomBytes(KEY_BYTES)]]), active: next };
    });
    return next;
  }

  /**
   * Removes a version nothing is sealed under any more. The caller knows that (the api, after rewrapping every
   * key); the keyring refuses only what it can tell is wrong: the file's active version, and a version neither
   * the file nor this process has. One another tokenizer already retired is retired here too.
   */
  retire(version: number): void {
    // Memory may lack a version the file has (not reloaded yet): the locked read below decides.
    let known = this.keys.has(version) || this.retiring.has(version);
    this.update((c) => {
      if (version === c.active) throw new RecoveryError('the active version cannot be retired');
      if (!c.keys.has(version)) return c;
      known = true;
      const keys = new Map(c.keys);
      keys.delete(version);
      return { ...c, keys };
    });
    if (!known) throw new RecoveryError(`no master key version ${version} in the keyring`);
    this.forget(version);
  }

  /**
   * Gives the keyring a recovery key and returns its five shares (hex), any three of which rebuild it. They are
   * shown once: only the recovery key sealed under the wrapping key is kept.
   */
  async enableRecovery(): Promise<string[]> {
    const recoveryKey = randomBytes(KEY_BYTES);
    const shares = await recoveryShares(recoveryKey);
    this.update((c) => ({ ...c, recoveryKey }));
    return shares;
  }

  /**
   * Rebuilds the recovery key from three or more shares, checks that the recovery copy holds exactly the keyring's
   * keys, then re-seals the keyring under a new wrapping key and returns it. On any mismatch nothing changes.
   */
  async rewrap(sharesHex: string[]): Promise<Buffer> {
    if (this.custody.kind !== 'static') throw new RecoveryError('the keyring is sealed by an HSM key, not a wrapping key: move it with npm run keyring:init -- --rewrap-to static');
    const candidate = await this.combine(sharesHex);
    const next = randomBytes(KEY_BYTES);
    const previous = this.custody;
    this.update((c) => {
      this.checkRecovery(c, candidate);
      return c;
    }, new StaticCustody(next));
    try {
      if (this.devKeyFile) writePrivateFile(this.devKeyFile, `${next.toString('hex')}\n`, 'replace');
    } catch (err) {
      this.update((c) => c, previous);
      throw err;
    }
    candidate.fill(0);
    previous.close();
    return next;
  }

  /** keyring:init --rewrap-to: the same keys, sealed from now on by `target` (one locked write; data is untouched). */
  rewrapTo(target: Custody | Buffer): void {
    this.update((c) => c, asCustody(target));
  }

  /**
   * SystemResplitRecoveryKey: rebuilds the recovery key from three current shares, checks that it opens the
   * keyring's recovery copy (and that the copy holds exactly its keys), then makes a new recovery key, re-seals the
   * recovery copy under it, and returns its five new shares. The old shares then rebuild a key that opens nothing.
   */
  async resplit(sharesHex: string[]): Promise<string[]> {
    if (!this.recoveryKey) throw new NoRecoveryKeyError(NO_RECOVERY_KEY);
    const candidate = await this.combine(sharesHex);
    const recoveryKey = randomBytes(KEY_BYTES);
    const shares = await recoveryShares(recoveryKey);
    try {
      this.update((c) => {
        this.checkRecovery(c, candidate);
        return { ...c, recoveryKey };
      });
    } finally {
      candidate.fill(0);
    }
    return shares;
  }

  /**
   * Reads keyring.json again if it changed since this process last read or wrote it (another tokenizer rotated,
   * retired, re-split). Versions the file gained are added and its active version taken; versions it lost are
   * kept for opening for RETIRED_GRACE_MS. A file that no longer opens with this wrapping key throws KeyringError
   * and changes nothing in memory.
   */
  reload(): ReloadResult {
    this.expireRetiring();
    const stamp = fileStamp(this.file);
    if (stamp === this.stamp) return { reloaded: false, added: [], removed: [] };
    const before = new Set(this.keys.keys());
    const read = readKeyringFile(this.file, this.custody);
    this.adopt(read, stamp);
    const after = new Set(this.keys.keys());
    return { reloaded: true, added: [...after].filter((v) => !before.has(v)), removed: [...before].filter((v) => !after.has(v)) };
  }

  /**
   * For a version a ciphertext names and memory lacks: whether to reload now. Yes when the file changed since it
   * was last read (the reload may well fix the call, so no rate limit applies), else at most once a second (a
   * header can name any of 2^32 versions: a flood of unknown ones must not become a flood of reads).
   */
  reloadWanted(): boolean {
    if (fileStamp(this.file) !== this.stamp) return true;
    if (Date.now() - this.lastUnknownReload < 1000) return false;
    this.lastUnknownReload = Date.now();
    return true;
  }

  private async combine(sharesHex: string[]): Promise<Buffer> {
    const parsed = parseShares(sharesHex);
    try {
      return Buffer.from(await combine(parsed));
    } catch {
      throw new RecoveryError('the shares do not combine');
    }
  }

  /** Throws unless `candidate` opens the recovery copy of `c` and that copy holds exactly its keys. */
  private checkRecovery(c: KeyringContents, candidate: Buffer): void {
    if (!c.recoveryKey || !c.recoverySealed) throw new NoRecoveryKeyError(NO_RECOVERY_KEY);
    const versions = [...c.keys.keys()].sort((a, b) => a - b);
    let recovered: Map<number, Buffer>;
    try {
      recovered = openRecoveryCopy(candidate, c.active, versions, c.recoverySealed);
    } catch {
      throw new RecoveryError('the shares do not rebuild this keyring\'s recovery key');
    }
    const same = recovered.size === c.keys.size && [...recovered].every(([v, k]) => c.keys.get(v)?.equals(k));
    for (const k of recovered.values()) k.fill(0);
    if (!same) throw new RecoveryError('the recovered keys are not the keyring\'s keys');
  }

  /**
   * Every change to keyring.json, as a compare-and-swap under an exclusive lock (`withFileLock`): read the file as
   * it is now (another tokenizer may have changed it), apply `change` to that, write it (temporary file and
   * rename), then take the result as this process's keyring. A change is therefore never made to a stale copy:
   * two rotations on two replicas make two versions, and a retirement removes only what the file holds. If the
   * file no longer opens with this wrapping key (re-sealed by SystemGenerateWrappingKey elsewhere), it throws and
   * nothing changes. `wrapWith` re-seals under another wrapping key (SystemGenerateWrappingKey).
   */
  private update(change: (current: KeyringContents) => KeyringContents, wrapWith = this.custody): void {
    withFileLock(this.file, () => {
      const current = readKeyringFile(this.file, this.custody);
      const next = change(current);
      if (next === current && wrapWith === this.custody && !current.legacy) {
        // Nothing to write; still take what the file says.
        this.adopt(current, fileStamp(this.file));
        return;
      }
      const { text, recoverySealed } = sealKeyringFile(wrapWith, next);
      writePrivateFile(this.file, text, 'replace');
      this.custody = wrapWith;
      this.adopt({ ...next, recoverySealed }, fileStamp(this.file));
    });
  }

  /** Takes the file's contents as this process's keyring; versions the file dropped go to the grace list. */
  private adopt(c: KeyringContents, stamp: string | undefined): void {
    const keys = new Map<number, Buffer>();
    for (const [v, read] of c.keys) {
      const mine = this.keys.get(v) ?? this.retiring.get(v)?.key;
      this.retiring.delete(v);
      if (mine?.equals(read)) {
        // The same key: keep the buffer in use, zero the copy just read.
        keys.set(v, mine);
        if (mine !== read) read.fill(0);
        continue;
      }
      // A version whose key differs from the file's can only come from a writer that bypassed the lock; the file
      // wins, and whatever was derived from the old key is dropped.
      if (mine) this.onForget(v);
      keys.set(v, read);
    }
    for (const [v, key] of this.keys) {
      if (!keys.has(v) && !this.retiring.has(v)) this.retiring.set(v, { key, until: Date.now() + RETIRED_GRACE_MS });
    }
    this.keys = keys;
    this.activeVersion = c.active;
    this.recoveryKey = c.recoveryKey;
    this.recoverySealed = c.recoverySealed;
    this.stamp = stamp;
  }

  private forget(version: number): void {
    const held = this.retiring.get(version);
    this.retiring.delete(version);
    held?.key.fill(0);
    this.onForget(version);
  }

  private expireRetiring(): void {
    const now = Date.now();
    for (const [v, { until }] of this.retiring) if (until <= now) this.forget(v);
  }
}
