// The versioned master keyring in memory: its key versions, the active one, rotation, the recovery key.
import { createHash, randomBytes } from 'node:crypto';
import { split, combine } from 'shamir-secret-sharing';
import { openRecoveryCopy, readKeyringFile, sealKeyringFile, writePrivateFile } from './keyring-file.js';

/** The shares given do not rebuild the recovery key of this keyring, or it has none. */
export class RecoveryError extends Error {
  override name = 'RecoveryError';
}

export const KEY_BYTES = 32;
const SHARES = 5;
const THRESHOLD = 3;

/** The five shares (hex) of a recovery key, any three of which rebuild it. */
export async function recoveryShares(recoveryKey: Buffer): Promise<string[]> {
  const shares = await split(new Uint8Array(recoveryKey), SHARES, THRESHOLD);
  return shares.map((sh) => Buffer.from(sh).toString('hex'));
}

export class Keyring {
  private constructor(
    private readonly keys: Map<number, Buffer>,
    private activeVersion: number,
    readonly file: string,
    private wrappingKey: Buffer,
    private recoveryKey?: Buffer,
    /** The recovery copy as read, checked by `rewrap`. */
    private recoverySealed?: string,
  ) {}

  /** Where a development wrapping key lives, when that is where this keyring's key came from. */
  devKeyFile: string | undefined;

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
    const first = this.keys.get(this.versions[0]!)!;
    return createHash('sha256').update('strongroom/keyring-id\0').update(first).digest('hex').slice(0, 16);
  }

  key(version: number): Buffer | undefined {
    return this.keys.get(version);
  }

  /**
   * A first key, and with `recoveryKey` its recovery copy, written together in one exclusive create: it refuses
   * if a keyring appeared meanwhile, so a keyring is never replaced.
   */
  static create(file: string, wrappingKey: Buffer, recoveryKey?: Buffer): Keyring {
    const keyring = new Keyring(new Map([[1, randomBytes(KEY_BYTES)]]), 1, file, wrappingKey, recoveryKey);
    keyring.save('create');
    return keyring;
  }

  static open(file: string, wrappingKey: Buffer): Keyring {
    const read = readKeyringFile(file, wrappingKey);
    const keyring = new Keyring(read.keys, read.active, file, wrappingKey, read.recoveryKey, read.recoverySealed);
    if (read.legacy) keyring.save('replace');
    return keyring;
  }

  /** Adds a new master key version and makes it active for new writes; older versions still open. */
  rotate(): number {
    const next = Math.max(...this.keys.keys()) + 1;
    const previous = this.activeVersion;
    this.keys.set(next, randomBytes(KEY_BYTES));
    this.activeVersion = next;
    try {
      this.save('replace');
    } catch (err) {
      // A key that never reached the disk must not seal anything: it would be lost at the next restart.
      this.keys.delete(next);
      this.activeVersion = previous;
      throw err;
    }
    return next;
  }

  /**
   * Removes a version nothing is sealed under any more. The caller knows that (the api, after rewrapping every
   * key); the keyring refuses only what it can tell is wrong: the active version, and an unknown one.
   */
  retire(version: number): void {
    if (version === this.activeVersion) throw new RecoveryError('the active version cannot be retired');
    const key = this.keys.get(version);
    if (!key) throw new RecoveryError(`no master key version ${version} in the keyring`);
    this.keys.delete(version);
    try {
      this.save('replace');
    } catch (err) {
      this.keys.set(version, key);
      throw err;
    }
    key.fill(0);
  }

  /**
   * Gives the keyring a recovery key and returns its five shares (hex), any three of which rebuild it. They are
   * shown once: only the recovery key sealed under the wrapping key is kept.
   */
  async enableRecovery(): Promise<string[]> {
    const recoveryKey = randomBytes(KEY_BYTES);
    const shares = await recoveryShares(recoveryKey);
    const previous = this.recoveryKey;
    this.recoveryKey = recoveryKey;
    try {
      this.save('replace');
    } catch (err) {
      this.recoveryKey = previous;
      throw err;
    }
    return shares;
  }

  /**
   * Rebuilds the recovery key from three or more shares, checks that the recovery copy holds exactly the running
   * keys, then re-seals the keyring under a new wrapping key and returns it. On any mismatch nothing changes.
   */
  async rewrap(sharesHex: string[]): Promise<Buffer> {
    if (!this.recoveryKey || !this.recoverySealed) throw new RecoveryError('this keyring has no recovery key');
    if (sharesHex.length < THRESHOLD) throw new RecoveryError(`at least ${THRESHOLD} shares are needed`);
    let candidate: Buffer;
    try {
      candidate = Buffer.from(await combine(sharesHex.map((h) => new Uint8Array(Buffer.from(h, 'hex')))));
    } catch {
      throw new RecoveryError('the shares do not combine');
    }
    let recovered: Map<number, Buffer>;
    try {
      recovered = openRecoveryCopy(candidate, this.activeVersion, this.versions, this.recoverySealed);
    } catch {
      throw new RecoveryError('the shares do not rebuild this keyring\'s recovery key');
    }
    const same = recovered.size === this.keys.size && [...recovered].every(([v, k]) => this.keys.get(v)?.equals(k));
    if (!same) throw new RecoveryError('the recovered keys are not the running keys');
    const previous = this.wrappingKey;
    const next = randomBytes(KEY_BYTES);
    this.wrappingKey = next;
    try {
      this.save('replace');
      if (this.devKeyFile) writePrivateFile(this.devKeyFile, `${next.toString('hex')}\n`, 'replace');
    } catch (err) {
      this.wrappingKey = previous;
      this.save('replace');
      throw err;
    }
    return next;
  }

  private save(mode: 'create' | 'replace'): void {
    const { text, recoverySealed } = sealKeyringFile(this.wrappingKey, { keys: this.keys, active: this.activeVersion, recoveryKey: this.recoveryKey });
    if (recoverySealed) this.recoverySealed = recoverySealed;
    writePrivateFile(this.file, text, mode);
  }
}
