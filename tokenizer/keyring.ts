// The versioned master keyring, sealed at rest with AES-256-GCM under the wrapping key.
import { randomBytes, createCipheriv, createDecipheriv } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { split, combine } from 'shamir-secret-sharing';
import { parseWrappingKey, type TokenizerConfig } from './config.js';

/** What keyring.json holds: metadata anyone may read, and the sealed keys. */
interface KeyringFile {
  format: typeof FORMAT | typeof FORMAT_V1;
  active: number;
  versions: number[];
  /** base64(nonce ‖ ciphertext ‖ tag) of the JSON map version → hex key. */
  sealed: string;
  /** The same map sealed under the recovery key, whose 3-of-5 Shamir shares were shown once. */
  recovery?: string;
  /** The recovery key sealed under the wrapping key, so a rotation can re-seal the recovery copy. */
  recoveryKey?: string;
}

export class KeyringError extends Error {
  override name = 'KeyringError';
}

/** Another process created the keyring first (two first starts on a shared volume): open theirs. */
export class KeyringExistsError extends KeyringError {
  override name = 'KeyringExistsError';
}

/** The shares given do not rebuild the recovery key of this keyring, or it has none. */
export class RecoveryError extends Error {
  override name = 'RecoveryError';
}

const SHARES = 5;
const THRESHOLD = 3;

function sealWith(key: Buffer, aad: Buffer, plain: Buffer): string {
  const nonce = randomBytes(NONCE);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(aad);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]).toString('base64');
}

/** Throws (GCM authentication) when the key or the AAD is not the one that sealed the blob. */
function openWith(key: Buffer, aad: Buffer, sealed: string): Buffer {
  const blob = Buffer.from(sealed, 'base64');
  const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, NONCE));
  d.setAAD(aad);
  d.setAuthTag(blob.subarray(blob.length - TAG));
  return Buffer.concat([d.update(blob.subarray(NONCE, blob.length - TAG)), d.final()]);
}

const RECOVERY_KEY_AAD = Buffer.from('strongroom-recovery-key');

const FORMAT = 'strongroom-keyring-v2';
// v1 sealed the keys but not `active`; still read so existing development data directories keep working.
const FORMAT_V1 = 'strongroom-keyring-v1';
const KEY_BYTES = 32;
const NONCE = 12;
const TAG = 16;

/** v2 binds the metadata into the AAD: editing `active` in the file cannot steer new writes to another key. */
function aadFor(format: KeyringFile['format'], active: number, versions: number[]): Buffer {
  if (format === FORMAT_V1) return Buffer.from(FORMAT_V1);
  return Buffer.from(`${FORMAT}\0${JSON.stringify({ active, versions })}`);
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

  key(version: number): Buffer | undefined {
    return this.keys.get(version);
  }

  /** Creates a keyring with a first key; refuses if one appeared meanwhile, so a keyring is never replaced. */
  /** A first key, and with `recoveryKey` its recovery copy, written together in one exclusive create. */
  static create(file: string, wrappingKey: Buffer, recoveryKey?: Buffer): Keyring {
    const keyring = new Keyring(new Map([[1, randomBytes(KEY_BYTES)]]), 1, file, wrappingKey, recoveryKey);
    keyring.save('create');
    return keyring;
  }

  static open(file: string, wrappingKey: Buffer): Keyring {
    let doc: KeyringFile;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8')) as KeyringFile;
    } catch (err) {
      throw new KeyringError(`${file} cannot be read as a keyring: ${(err as Error).name}`);
    }
    if (doc?.format !== FORMAT && doc?.format !== FORMAT_V1) throw new KeyringError(`${file} is not a Strongroom keyring`);
    const blob = Buffer.from(String(doc.sealed), 'base64');
    let plain: Buffer;
    try {
      const d = createDecipheriv('aes-256-gcm', wrappingKey, blob.subarray(0, NONCE));
      d.setAAD(aadFor(doc.format, doc.active, doc.versions));
      d.setAuthTag(blob.subarray(blob.length - TAG));
      plain = Buffer.concat([d.update(blob.subarray(NONCE, blob.length - TAG)), d.final()]);
    } catch {
      throw new KeyringError(
        `the wrapping key does not open the keyring in ${file} (GCM authentication failed): wrong STRONGROOM_WRAPPING_KEY, or the file was altered`,
      );
    }
    const keys = parseKeys(plain);
    plain.fill(0);
    if (!keys.has(doc.active)) throw new KeyringError(`the keyring in ${file} has no key for its active version ${doc.active}`);
    let recoveryKey: Buffer | undefined;
    if (doc.recoveryKey && doc.recovery) {
      try {
        recoveryKey = openWith(wrappingKey, RECOVERY_KEY_AAD, doc.recoveryKey);
      } catch {
        throw new KeyringError(`the recovery key in ${file} does not open with the wrapping key: the file was altered`);
      }
    }
    const keyring = new Keyring(keys, doc.active, file, wrappingKey, recoveryKey, doc.recovery);
    if (doc.format === FORMAT_V1) keyring.save('replace');
    return keyring;
  }

  /** Opens the keyring in `dir`, or creates one with a first key when none exists. */
  static openOrCreate(dir: string, wrappingKey: Buffer): { keyring: Keyring; created: boolean } {
    const file = join(dir, 'keyring.json');
    privateDir(dir);
    if (existsSync(file)) return { keyring: Keyring.open(file, wrappingKey), created: false };
    return { keyring: Keyring.create(file, wrappingKey), created: true };
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
   * Gives the keyring a recovery key and returns its five shares (hex), any three of which rebuild it. They are
   * shown once: only the recovery key sealed under the wrapping key is kept.
   */
  async enableRecovery(): Promise<string[]> {
    const recoveryKey = randomBytes(KEY_BYTES);
    const shares = await split(new Uint8Array(recoveryKey), SHARES, THRESHOLD);
    const previous = this.recoveryKey;
    this.recoveryKey = recoveryKey;
    try {
      this.save('replace');
    } catch (err) {
      this.recoveryKey = previous;
      throw err;
    }
    return shares.map((sh) => Buffer.from(sh).toString('hex'));
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
      recovered = parseKeys(openWith(candidate, aadFor(FORMAT, this.activeVersion, this.versions), this.recoverySealed));
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
    const versions = this.versions;
    const aad = aadFor(FORMAT, this.activeVersion, versions);
    const plain = Buffer.from(JSON.stringify(Object.fromEntries(versions.map((v) => [String(v), this.keys.get(v)!.toString('hex')]))));
    const doc: KeyringFile = { format: FORMAT, active: this.activeVersion, versions, sealed: sealWith(this.wrappingKey, aad, plain) };
    if (this.recoveryKey) {
      doc.recovery = this.recoverySealed = sealWith(this.recoveryKey, aad, plain);
      doc.recoveryKey = sealWith(this.wrappingKey, RECOVERY_KEY_AAD, this.recoveryKey);
    }
    plain.fill(0);
    writePrivateFile(this.file, `${JSON.stringify(doc, null, 2)}\n`, mode);
  }
}

function parseKeys(plain: Buffer): Map<number, Buffer> {
  const map = JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
  const keys = new Map<number, Buffer>();
  for (const [v, hex] of Object.entries(map)) {
    const version = Number(v);
    if (!Number.isInteger(version) || version < 1 || typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) {
      throw new KeyringError('the keyring holds a malformed key entry');
    }
    keys.set(version, Buffer.from(hex, 'hex'));
  }
  if (keys.size === 0) throw new KeyringError('the keyring holds no keys');
  return keys;
}

function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode only applies to directories it creates, and the umask trims it: make sure.
  chmodSync(dir, 0o700);
}

/**
 * Writes a temporary file, flushes it, then moves it into place, so a crash never leaves half a keyring.
 * `create` links instead of renaming: it fails if the file exists, so two first starts cannot both win.
 */
export function writePrivateFile(file: string, text: string, mode: 'create' | 'replace'): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (mode === 'create') {
      try {
        linkSync(tmp, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyringExistsError(`${file} already exists: not overwriting it`);
        throw err;
      }
    } else {
      renameSync(tmp, file);
    }
  } finally {
    if (existsSync(tmp)) unlinkSync(tmp);
  }
  // The rename lives in the directory: flush it too, or a power cut can forget the new file.
  const dirFd = openSync(dirname(file), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

const defaultNotice = (text: string) => void process.stderr.write(text);

/**
 * The keyring for this data directory. With no wrapping key given, a development one is kept in
 * <dataDir>/tokenizer/wrapping.key (created with the keyring, announced once on stderr by its path).
 */
export function loadKeyring(
  config: Pick<TokenizerConfig, 'dataDir' | 'wrappingKey'>,
  notice: (text: string) => void = defaultNotice,
  /** For a keyring created now: its recovery key, sealed into the very write that creates it. */
  recoveryKey?: Buffer,
): { keyring: Keyring; created: boolean } {
  const dir = join(config.dataDir, 'tokenizer');
  const file = join(dir, 'keyring.json');
  const devKeyFile = join(dir, 'wrapping.key');
  privateDir(dir);
  let wrappingKey = config.wrappingKey;
  const fromDevFile = !wrappingKey && existsSync(devKeyFile);
  if (fromDevFile) wrappingKey = parseWrappingKey(readFileSync(devKeyFile, 'utf8'), devKeyFile);
  if (existsSync(file)) {
    if (!wrappingKey) {
      throw new KeyringError(`a keyring exists in ${dir} but no wrapping key was given: set STRONGROOM_WRAPPING_KEY or STRONGROOM_WRAPPING_KEY_FILE`);
    }
    const keyring = Keyring.open(file, wrappingKey);
    if (fromDevFile) keyring.devKeyFile = devKeyFile;
    return { keyring, created: false };
  }
  let devKeyWritten = false;
  if (!wrappingKey) {
    wrappingKey = randomBytes(KEY_BYTES);
    writePrivateFile(devKeyFile, `${wrappingKey.toString('hex')}\n`, 'create');
    devKeyWritten = true;
  }
  const keyring = Keyring.create(file, wrappingKey, recoveryKey);
  if (devKeyWritten) keyring.devKeyFile = devKeyFile;
  notice(
    devKeyWritten || !config.wrappingKey
      ? `Strongroom tokenizer: created a development keyring in ${dir}. Its wrapping key is in ${devKeyFile}. ` +
          'For production, move that key into STRONGROOM_WRAPPING_KEY (or a mounted file named by STRONGROOM_WRAPPING_KEY_FILE) and delete the file.\n'
      : `Strongroom tokenizer: created a new keyring in ${dir}, sealed with the supplied wrapping key.\n`,
  );
  return { keyring, created: true };
}

/**
 * The tokenizer's start: open the keyring, or create it together with its recovery key in one exclusive write,
 * so that of two tokenizers starting at once on a shared volume exactly one creates it and shows shares, and
 * the other opens that keyring (a recovery key added in a second write could be overwritten by the other's).
 */
export async function openKeyring(
  config: Pick<TokenizerConfig, 'dataDir' | 'wrappingKey'>,
  notice: (text: string) => void = defaultNotice,
): Promise<Keyring> {
  const recoveryKey = randomBytes(KEY_BYTES);
  const shares = await split(new Uint8Array(recoveryKey), SHARES, THRESHOLD);
  let loaded: { keyring: Keyring; created: boolean };
  try {
    loaded = loadKeyring(config, notice, recoveryKey);
  } catch (err) {
    if (!(err instanceof KeyringExistsError)) throw err;
    loaded = loadKeyring(config, notice);
  }
  if (loaded.created) notice(sharesNotice(shares.map((sh) => Buffer.from(sh).toString('hex'))));
  // A keyring made before recovery keys existed gets one now.
  else await ensureRecovery(loaded.keyring, notice);
  return loaded.keyring;
}

function sharesNotice(shares: string[]): string {
  return (
    `Strongroom tokenizer: recovery key shares (any 3 of these 5 rebuild it; they are shown only this once):\n` +
    shares.map((sh, i) => `  share ${i + 1}: ${sh}\n`).join('') +
    'Give them to five different people. SystemGenerateWrappingKey takes three of them to issue a new wrapping key.\n'
  );
}

/** A keyring without a recovery key gets one now; its shares are shown once, here, and never again. */
export async function ensureRecovery(keyring: Keyring, notice: (text: string) => void = defaultNotice): Promise<void> {
  if (keyring.hasRecovery) return;
  notice(sharesNotice(await keyring.enableRecovery()));
}
