// keyring.json on disk: its format, the keys sealed in it (AES-256-GCM), and private files written atomically.
import { createHash, randomBytes, createCipheriv, createDecipheriv } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { asCustody, CustodyOpenError, type Custody, type CustodyKind } from './custody.js';

/** Bytes of a master key, and of the recovery key: AES-256. */
export const KEY_BYTES = 32;

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
  /** Absent: sealed by a static wrapping key. `pkcs11`: `sealed` and `recoveryKey` were sealed inside the HSM. */
  custody?: Exclude<CustodyKind, 'static'>;
  /** With an HSM custody: the keyring's id (keyringIdOf), bound into the AAD of what the HSM seals. */
  id?: string;
}

/** What a keyring file holds once opened. */
export interface KeyringContents {
  keys: Map<number, Buffer>;
  active: number;
  recoveryKey?: Buffer | undefined;
  /** The recovery copy as written, which `openRecoveryCopy` opens. */
  recoverySealed?: string | undefined;
}

export class KeyringError extends Error {
  override name = 'KeyringError';
}

/** Another process created the keyring first (two first starts on a shared volume): open theirs. */
export class KeyringExistsError extends KeyringError {
  override name = 'KeyringExistsError';
}

const RECOVERY_KEY_AAD = Buffer.from('strongroom-recovery-key');

const FORMAT = 'strongroom-keyring-v2';
// v1 sealed the keys but not `active`; still read so existing development data directories keep working.
const FORMAT_V1 = 'strongroom-keyring-v1';
const NONCE = 12;
const TAG = 16;

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

/** v2 binds the metadata into the AAD: editing `active` in the file cannot steer new writes to another key. */
function aadFor(format: KeyringFile['format'], active: number, versions: number[]): Buffer {
  if (format === FORMAT_V1) return Buffer.from(FORMAT_V1);
  return Buffer.from(`${FORMAT}\0${JSON.stringify({ active, versions })}`);
}

/**
 * A public name for a keyring, the same across restarts and rotations: a one-way hash of its first key version, so
 * a database (or the AAD of an HSM seal) can name the keyring without holding anything secret.
 */
export function keyringIdOf(keys: Map<number, Buffer>): string {
  const first = keys.get(Math.min(...keys.keys()))!;
  return createHash('sha256').update('strongroom/keyring-id\0').update(first).digest('hex').slice(0, 16);
}

/** What an HSM custody's seals are bound to besides the metadata: its kind and the keyring's id. Static: nothing. */
function custodyBinding(doc: Pick<KeyringFile, 'custody' | 'id'>): Buffer {
  return doc.custody ? Buffer.from(`\0custody:${doc.custody}\0keyring:${doc.id}`) : Buffer.alloc(0);
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

/** Which custody sealed keyring.json, read without opening it (keyring:init --rewrap-to picks its source by it). */
export function custodyOfFile(file: string): CustodyKind {
  return (JSON.parse(readFileSync(file, 'utf8')) as KeyringFile).custody ?? 'static';
}

/** Opens keyring.json with its custody. `legacy` says it is in the v1 format, which should be rewritten. */
export function readKeyringFile(file: string, sealer: Custody | Buffer): KeyringContents & { legacy: boolean } {
  const custody = asCustody(sealer);
  let doc: KeyringFile;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as KeyringFile;
  } catch (err) {
    throw new KeyringError(`${file} cannot be read as a keyring: ${(err as Error).name}`);
  }
  if (doc?.format !== FORMAT && doc?.format !== FORMAT_V1) throw new KeyringError(`${file} is not a Strongroom keyring`);
  const sealedBy = doc.custody ?? 'static';
  if (sealedBy !== custody.kind) {
    throw new KeyringError(
      `the keyring in ${file} is sealed by ${sealedBy} custody, this tokenizer's is ${custody.kind}: set STRONGROOM_TOKENIZER_CUSTODY=${sealedBy}, or move it with npm run keyring:init -- --rewrap-to ${custody.kind}`,
    );
  }
  const binding = custodyBinding(doc);
  const plain = openOrExplain(file, doc.custody, () =>
    custody.unwrap(Buffer.from(String(doc.sealed), 'base64'), Buffer.concat([aadFor(doc.format, doc.active, doc.versions), binding])),
  );
  const keys = parseKeys(plain);
  plain.fill(0);
  if (!keys.has(doc.active)) throw new KeyringError(`the keyring in ${file} has no key for its active version ${doc.active}`);
  if (doc.custody && keyringIdOf(keys) !== doc.id) throw new KeyringError(`the keyring in ${file} is not keyring ${doc.id}: the file was altered`);
  let recoveryKey: Buffer | undefined;
  if (doc.recoveryKey && doc.recovery) {
    try {
      recoveryKey = custody.unwrap(Buffer.from(doc.recoveryKey, 'base64'), Buffer.concat([RECOVERY_KEY_AAD, binding]));
    } catch (err) {
      if (!(err instanceof CustodyOpenError)) throw err;
      throw new KeyringError(`the recovery key in ${file} does not open with the wrapping key: the file was altered`);
    }
  }
  return { keys, active: doc.active, recoveryKey, recoverySealed: doc.recovery, legacy: doc.format === FORMAT_V1 };
}

/** The keys as the custody opens them, or a KeyringError saying which key failed (an unreachable HSM is rethrown). */
function openOrExplain(file: string, sealedBy: KeyringFile['custody'], open: () => Buffer): Buffer {
  try {
    return open();
  } catch (err) {
    if (!(err instanceof CustodyOpenError)) throw err;
    if (sealedBy) throw new KeyringError(`the HSM key does not open the keyring in ${file} (${err.message}): another key object, or the file was altered`);
    throw new KeyringError(
      `the wrapping key does not open the keyring in ${file} (GCM authentication failed): wrong STRONGROOM_WRAPPING_KEY, or the file was altered`,
    );
  }
}

/** keyring.json's text: the keys sealed by the custody and, with a recovery key, the recovery copy. */
export function sealKeyringFile(
  sealer: Custody | Buffer,
  contents: Pick<KeyringContents, 'keys' | 'active' | 'recoveryKey'>,
): { text: string; recoverySealed: string | undefined } {
  const custody = asCustody(sealer);
  const versions = [...contents.keys.keys()].sort((a, b) => a - b);
  const aad = aadFor(FORMAT, contents.active, versions);
  const plain = Buffer.from(JSON.stringify(Object.fromEntries(versions.map((v) => [String(v), contents.keys.get(v)!.toString('hex')]))));
  const bound = custody.kind === 'static' ? {} : { custody: custody.kind, id: keyringIdOf(contents.keys) };
  const binding = custodyBinding(bound);
  const doc: KeyringFile = {
    format: FORMAT,
    active: contents.active,
    versions,
    sealed: custody.wrap(plain, Buffer.concat([aad, binding])).toString('base64'),
    ...bound,
  };
  if (contents.recoveryKey) {
    doc.recovery = sealWith(contents.recoveryKey, aad, plain);
    doc.recoveryKey = custody.wrap(contents.recoveryKey, Buffer.concat([RECOVERY_KEY_AAD, binding])).toString('base64');
  }
  plain.fill(0);
  return { text: `${JSON.stringify(doc, null, 2)}\n`, recoverySealed: doc.recovery };
}

/** The keys in a recovery copy; throws when `recoveryKey` or the metadata is not what sealed it. */
export function openRecoveryCopy(recoveryKey: Buffer, active: number, versions: number[], sealed: string): Map<number, Buffer> {
  return parseKeys(openWith(recoveryKey, aadFor(FORMAT, active, versions), sealed));
}

export function privateDir(dir: string): void {
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

/**
 * What changes whenever keyring.json is replaced: every write renames a new file into place, so its inode changes
 * (and its mtime and, usually, its size). Comparing stamps tells a tokenizer whether another one wrote the file.
 * undefined when the file cannot be stat'ed.
 */
export function fileStamp(file: string): string | undefined {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    return undefined;
  }
}

/** The lock could not be taken in time: another writer holds it (or a crashed one left it younger than STALE). */
export class KeyringLockedError extends KeyringError {
  override name = 'KeyringLockedError';
}

// A write holds the lock for milliseconds (read, seal, write, fsync, rename); a lock this old was left by a crash.
const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 5_000;
const LOCK_POLL_MS = 5;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` holding `<file>.lock`, an exclusive lock shared by every process that writes this keyring (several
 * tokenizers on one volume, keyring:init): the lock is the file created with O_EXCL (`wx`), like git's index.lock,
 * and removed afterwards. Synchronous on purpose: `fn` reads, merges and writes the keyring with no await in
 * between, so nothing else in this process can run inside it (an async `fn` would let a second caller of this
 * process spin on its own lock). A lock older than LOCK_STALE_MS is a crashed writer's and is broken.
 */
export function withFileLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const until = Date.now() + LOCK_WAIT_MS;
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(lock, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // released meanwhile: try again at once
      }
      if (age > LOCK_STALE_MS) {
        try {
          unlinkSync(lock);
        } catch {
          // another process broke it first
        }
        continue;
      }
      if (Date.now() > until) throw new KeyringLockedError(`${lock} is held by another writer: the keyring was not changed, try again`);
      Atomics.wait(sleeper, 0, 0, LOCK_POLL_MS);
    }
  }
  try {
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // broken as stale by another process: nothing left to remove
    }
  }
}
