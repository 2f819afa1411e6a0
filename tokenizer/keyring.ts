// The versioned master keyring, sealed at rest with AES-256-GCM under the wrapping key.
import { randomBytes, createCipheriv, createDecipheriv } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync, chmodSync } from 'node:fs';
import { join } from 'node:path';

interface KeyringFile {
  format: 'strongroom-keyring-v1';
  active: number;
  versions: number[];
  /** base64(nonce ‖ ciphertext ‖ tag) of the JSON map version → hex key. */
  sealed: string;
}

export class KeyringError extends Error {
  override name = 'KeyringError';
}

const AAD = Buffer.from('strongroom-keyring-v1');

export class Keyring {
  private constructor(
    private readonly keys: Map<number, Buffer>,
    private activeVersion: number,
    private readonly file: string,
    private readonly wrappingKey: Buffer,
  ) {}

  get active(): number {
    return this.activeVersion;
  }

  get versions(): number[] {
    return [...this.keys.keys()].sort((a, b) => a - b);
  }

  key(version: number): Buffer | undefined {
    return this.keys.get(version);
  }

  /** Opens the keyring in `dir`, or creates one with a first key when none exists. */
  static openOrCreate(dir: string, wrappingKey: Buffer): { keyring: Keyring; created: boolean } {
    const file = join(dir, 'keyring.json');
    if (existsSync(file)) return { keyring: Keyring.open(file, wrappingKey), created: false };
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const keyring = new Keyring(new Map([[1, randomBytes(32)]]), 1, file, wrappingKey);
    keyring.save();
    return { keyring, created: true };
  }

  static open(file: string, wrappingKey: Buffer): Keyring {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as KeyringFile;
    if (doc.format !== 'strongroom-keyring-v1') throw new KeyringError(`${file} is not a Strongroom keyring`);
    const blob = Buffer.from(doc.sealed, 'base64');
    let plain: Buffer;
    try {
      const d = createDecipheriv('aes-256-gcm', wrappingKey, blob.subarray(0, 12));
      d.setAAD(AAD);
      d.setAuthTag(blob.subarray(blob.length - 16));
      plain = Buffer.concat([d.update(blob.subarray(12, blob.length - 16)), d.final()]);
    } catch {
      throw new KeyringError('the wrapping key does not open the keyring (wrong STRONGROOM_WRAPPING_KEY?)');
    }
    const map = JSON.parse(plain.toString('utf8')) as Record<string, string>;
    plain.fill(0);
    const keys = new Map(Object.entries(map).map(([v, hex]) => [Number(v), Buffer.from(hex, 'hex')]));
    if (!keys.has(doc.active)) throw new KeyringError('the keyring has no active key');
    return new Keyring(keys, doc.active, file, wrappingKey);
  }

  /** Adds a new master key version and makes it active for new writes; older versions still open. */
  rotate(): number {
    const next = Math.max(...this.keys.keys()) + 1;
    this.keys.set(next, randomBytes(32));
    this.activeVersion = next;
    this.save();
    return next;
  }

  private save(): void {
    const map = Object.fromEntries([...this.keys].map(([v, k]) => [String(v), k.toString('hex')]));
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.wrappingKey, nonce);
    c.setAAD(AAD);
    const body = Buffer.concat([c.update(JSON.stringify(map), 'utf8'), c.final()]);
    const doc: KeyringFile = {
      format: 'strongroom-keyring-v1',
      active: this.activeVersion,
      versions: this.versions,
      sealed: Buffer.concat([nonce, body, c.getAuthTag()]).toString('base64'),
    };
    // Write then rename: a crash never leaves a half-written keyring behind.
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(doc, null, 2), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }
}
