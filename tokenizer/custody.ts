// Who holds the key that seals the keyring: `static` (a wrapping key given to this process, as before) or `pkcs11`
// (a non-extractable AES-256 key inside an HSM, which seals and opens for us and never shows the key).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export type CustodyKind = 'static' | 'pkcs11';

/**
 * A key holder that seals small secrets (the keyring's keys, its recovery key) bound to an AAD. The layout of what
 * `wrap` returns is the same for every custody: nonce (12) ‖ ciphertext ‖ GCM tag (16), AES-256-GCM.
 *
 * `label` names another key of the same holder: the keyring's own key when undefined; a tenant's key-encryption key
 * (tokenizer/tenant-keys.ts) is a second HSM object, named by its label.
 */
export interface Custody {
  readonly kind: CustodyKind;
  /** What logs and errors may say of it: module, slot, key label. Never a PIN or key bytes. */
  readonly describe: Readonly<Record<string, string>>;
  wrap(plain: Buffer, aad: Buffer, label?: string): Buffer;
  /** Throws CustodyOpenError when the key or the AAD is not what sealed it, CustodyUnavailableError when unreachable. */
  unwrap(sealed: Buffer, aad: Buffer, label?: string): Buffer;
  /** Proves the key is there and works now (a sealed round trip); throws CustodyUnavailableError. */
  probe(label?: string): void;
  /** Destroys the key object `label` (a tenant's KEK, revoked): true when destroyed now, false when there was none. */
  destroy(label: string): boolean;
  /** The attributes of the key object `label` that decide whether it may be a tenant's KEK (HSM custody only). */
  keyFacts?(label: string): KeyFacts;
  close(): void;
}

export interface KeyFacts {
  aes: boolean;
  bytes: number;
  sensitive: boolean;
  extractable: boolean;
  neverExtractable: boolean;
  encrypt: boolean;
  decrypt: boolean;
}

/** The key holder cannot be used now (HSM unreachable, key object gone, PIN refused): answered as UNAVAILABLE. */
export class CustodyUnavailableError extends Error {
  override name = 'CustodyUnavailableError';
  constructor(
    message: string,
    /** The PKCS#11 return value's name (CKR_…), when there was one; never a secret. */
    readonly rv?: string,
  ) {
    super(message);
  }
}

/** The key answered, but what it was given does not open under it (another key, another AAD, altered bytes). */
export class CustodyOpenError extends Error {
  override name = 'CustodyOpenError';
}

/** A bare key means static custody: what the keyring's callers passed before custodies existed. */
export function asCustody(keyOrCustody: Buffer | Custody): Custody {
  return Buffer.isBuffer(keyOrCustody) ? new StaticCustody(keyOrCustody) : keyOrCustody;
}

const NONCE = 12;
const TAG = 16;

/** A wrapping key held in this process's memory (STRONGROOM_WRAPPING_KEY, its file, or the development file). */
export class StaticCustody implements Custody {
  readonly kind = 'static';
  readonly describe = { custody: 'static' };
  private readonly key: Buffer;

  /** Takes a copy: the caller's buffer stays the caller's to zero. */
  constructor(key: Buffer) {
    this.key = Buffer.from(key);
  }

  /** Whether this custody's key is `key` (the keyring keeps the one it was given until a rewrap). */
  holds(key: Buffer): boolean {
    return this.key.equals(key);
  }

  wrap(plain: Buffer, aad: Buffer, label?: string): Buffer {
    this.only(label);
    const nonce = randomBytes(NONCE);
    const c = createCipheriv('aes-256-gcm', this.key, nonce);
    c.setAAD(aad);
    const body = Buffer.concat([c.update(plain), c.final()]);
    return Buffer.concat([nonce, body, c.getAuthTag()]);
  }

  unwrap(sealed: Buffer, aad: Buffer, label?: string): Buffer {
    this.only(label);
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, NONCE));
      d.setAAD(aad);
      d.setAuthTag(sealed.subarray(sealed.length - TAG));
      return Buffer.concat([d.update(sealed.subarray(NONCE, sealed.length - TAG)), d.final()]);
    } catch {
      throw new CustodyOpenError('GCM authentication failed');
    }
  }

  probe(label?: string): void {
    this.only(label);
  }

  destroy(label: string): boolean {
    this.only(label);
    return false;
  }

  close(): void {
    this.key.fill(0);
  }

  private only(label: string | undefined): void {
    if (label !== undefined) throw new CustodyUnavailableError(`static custody holds one key; there is no key labelled ${JSON.stringify(label)}`);
  }
}
