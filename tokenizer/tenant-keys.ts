// Tenants' own key-encryption keys (bring your own key, `pkcs11` custody only). A tenant with a KEK has a random
// 256-bit tenant key, kept by the api only wrapped inside the HSM by the tenant's key object; its people's data keys
// (and its own) are wrapped under that tenant key (tenant-wrap.ts). Opened tenant keys are kept for the key-cache
// TTL; every probe interval each held KEK object is probed, and a tenant whose object is gone loses its tenant key
// and its cached data keys at once. Revoking destroys the object inside the HSM: nothing then opens the tenant key,
// in any copy of the database.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { CustodyOpenError, CustodyUnavailableError, type Custody, type KeyFacts } from './custody.js';
import { TenantKeyUnavailableError } from './tenant-wrap.js';
import { BadItemError } from './batch-errors.js';
import { RefusedError } from './calls.js';
import { randomBuffer } from './random.js';
import { KEY_BYTES } from './keyring.js';

const AAD_PREFIX = Buffer.from('strongroom/tenant-kek/v1');

/** What binds a wrapped tenant key to its tenant: moved to another tenant (or one with another salt), it fails. */
export function tenantKekAad(tenantId: number, salt: Buffer): Buffer {
  const out = Buffer.alloc(AAD_PREFIX.length + 4 + salt.length);
  AAD_PREFIX.copy(out, 0);
  out.writeUInt32BE(tenantId, AAD_PREFIX.length);
  salt.copy(out, AAD_PREFIX.length + 4);
  return out;
}

export interface TenantKekRef {
  tenantId: number;
  salt: Buffer;
  label: string;
  wrapped: Buffer;
}

interface Held {
  key: Buffer;
  tenantId: number;
  label: string;
  until: number;
}

export type KekState = 'up' | 'missing' | 'unavailable';

export class TenantKeys {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Undefined under static custody: no tenant can have a KEK. */
    private readonly custody: Custody | undefined,
    private readonly opts: { ttlMs: number; log: Logger; keyringLabel: string | undefined; forgetDataKeys: (tenantId: number) => void },
  ) {}

  /** The tenant key, opened by its KEK inside the HSM (or held since, within the TTL); TenantKeyUnavailableError else. */
  keyOf(ref: TenantKekRef): Buffer {
    const id = idOf(ref);
    const now = Date.now();
    const hit = this.held.get(id);
    if (hit && hit.until > now) return hit.key;
    if (hit) this.drop(id);
    const custody = this.custody;
    if (!custody) throw new TenantKeyUnavailableError('this tokenizer has no HSM custody: the tenant\'s key-encryption key cannot be used');
    let key: Buffer;
    try {
      key = custody.unwrap(ref.wrapped, tenantKekAad(ref.tenantId, ref.salt), ref.label);
    } catch (err) {
      if (err instanceof CustodyOpenError || err instanceof CustodyUnavailableError) {
        throw new TenantKeyUnavailableError(`the tenant's key-encryption key ${JSON.stringify(ref.label)} does not open its tenant key (${(err as CustodyUnavailableError).rv ?? 'does not open'})`);
      }
      throw err;
    }
    if (key.length !== KEY_BYTES) {
      key.fill(0);
      throw new TenantKeyUnavailableError('the tenant key is malformed');
    }
    this.held.set(id, { key, tenantId: ref.tenantId, label: ref.label, until: now + this.opts.ttlMs });
    return key;
  }

  /** A new tenant key wrapped by `label`, or (a move) the tenant key of `from` wrapped by `label` instead. */
  make(tenantId: number, salt: Buffer, label: string, from?: TenantKekRef): Buffer {
    const custody = this.usable(label);
    try {
      const unfit = unfitKek(custody.keyFacts?.(label));
      if (unfit) throw new BadItemError(`kek: the HSM object ${JSON.stringify(label)} cannot be a key-encryption key: ${unfit}`);
      custody.probe(label);
    } catch (err) {
      if (err instanceof CustodyUnavailableError && err.rv === 'CKR_KEY_NOT_FOUND') throw new BadItemError(`kek: the HSM has no AES key object labelled ${JSON.stringify(label)}`);
      if (err instanceof CustodyUnavailableError && err.rv === 'CKR_KEY_NOT_UNIQUE') throw new BadItemError(`kek: two key objects in the HSM are labelled ${JSON.stringify(label)}: ambiguous`);
      throw err;
    }
    const key = from ? Buffer.from(this.keyOf(from)) : randomBuffer(KEY_BYTES);
    try {
      return custody.wrap(key, tenantKekAad(tenantId, salt), label);
    } finally {
      key.fill(0);
    }
  }

  /**
   * Destroys the tenant's KEK object once it is proven to be the tenant's (it opens the wrapped tenant key), and
   * forgets the tenant key and the tenant's data keys. False when the object was gone already.
   */
  revoke(ref: TenantKekRef): boolean {
    const custody = this.usable(ref.label);
    this.forgetTenant(ref.tenantId);
    try {
      custody.unwrap(ref.wrapped, tenantKekAad(ref.tenantId, ref.salt), ref.label).fill(0);
    } catch (err) {
      if (err instanceof CustodyUnavailableError && err.rv === 'CKR_KEY_NOT_FOUND') return false;
      if (err instanceof CustodyOpenError) throw new RefusedError(`the HSM object ${JSON.stringify(ref.label)} does not open this tenant's key: not destroyed`);
      throw err;
    }
    try {
      const destroyed = custody.destroy(ref.label);
      this.opts.log.warn({ tenant: ref.tenantId, kek: ref.label }, 'tenant key-encryption key destroyed in the HSM: the tenant\'s data no longer opens');
      return destroyed;
    } catch (err) {
      if (err instanceof CustodyUnavailableError && err.rv === 'CKR_ACTION_PROHIBITED') throw new RefusedError(`the HSM refuses to destroy ${JSON.stringify(ref.label)}: remove it with the HSM's own tool`);
      throw err;
    }
  }

  /** The state of each KEK object now. */
  states(labels: string[]): KekState[] {
    return labels.map((label) => {
      if (!this.custody) return 'unavailable';
      try {
        this.custody.probe(label);
        return 'up';
      } catch (err) {
        return err instanceof CustodyUnavailableError && err.rv === 'CKR_KEY_NOT_FOUND' ? 'missing' : 'unavailable';
      }
    });
  }

  /** Probes every KEK object a held tenant key came from: a missing one takes its tenants' keys with it now. */
  probe(): void {
    for (const label of new Set([...this.held.values()].map((h) => h.label))) {
      if (this.states([label])[0] !== 'missing') continue;
      this.opts.log.error({ kek: label }, 'a tenant key-encryption key object is gone from the HSM: its tenants\' keys are forgotten');
      for (const [id, h] of [...this.held]) if (h.label === label) this.forgetTenant(h.tenantId, id);
    }
  }

  /** Forgets every tenant key and cached data key of the tenant (or only the held entry `id`). */
  forgetTenant(tenantId: number, id?: string): void {
    for (const [k, h] of [...this.held]) if (h.tenantId === tenantId && (id === undefined || k === id)) this.drop(k);
    this.opts.forgetDataKeys(tenantId);
  }

  /** Probes the held KEK objects every `everyMs` (the custody's probe interval). */
  start(everyMs: number): void {
    if (!this.custody || this.timer) return;
    this.timer = setInterval(() => this.probe(), everyMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    for (const id of [...this.held.keys()]) this.drop(id);
  }

  private drop(id: string): void {
    this.held.get(id)?.key.fill(0);
    this.held.delete(id);
  }

  private usable(label: string): Custody {
    if (!this.custody) throw new BadItemError('kek: per-tenant key-encryption keys need the tokenizer\'s pkcs11 custody (STRONGROOM_TOKENIZER_CUSTODY=pkcs11)');
    if (label === this.opts.keyringLabel) throw new BadItemError('kek: that is the keyring\'s own key object, never a tenant\'s');
    return this.custody;
  }
}

/** Why the object cannot hold a tenant's key, or undefined when it can: AES-256, sensitive, never extractable. */
export function unfitKek(facts: KeyFacts | undefined): string | undefined {
  if (!facts) return 'its attributes cannot be read';
  if (!facts.aes) return 'it is not an AES key';
  if (facts.bytes !== KEY_BYTES) return `it is a ${facts.bytes * 8}-bit key, not 256-bit`;
  if (!facts.sensitive) return 'it is not sensitive (CKA_SENSITIVE false)';
  if (facts.extractable) return 'it is extractable (CKA_EXTRACTABLE true)';
  if (!facts.neverExtractable) return 'it was extractable once (CKA_NEVER_EXTRACTABLE false)';
  if (!facts.encrypt || !facts.decrypt) return 'it cannot encrypt and decrypt (CKA_ENCRYPT, CKA_DECRYPT)';
  return undefined;
}

function idOf(ref: TenantKekRef): string {
  const digest = createHash('sha256').update(ref.wrapped).digest('base64');
  return `${ref.tenantId}\0${ref.salt.toString('hex')}\0${ref.label}\0${digest}`;
}
