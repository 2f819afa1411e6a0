// Per-tenant subkeys, derived with HKDF-SHA256 from a master key version, the tenant id and a purpose.
import { hkdfSync } from 'node:crypto';
import type { Keyring } from './keyring.js';

// `wrap` seals persons' data keys (envelope encryption); it seals nothing else. `audit` keys the audit chain
// (tokenizer/audit-keys.ts), always from master version 1.
export type Purpose = 'record' | 'index' | 'fpe' | 'dedupe' | 'wrap' | 'audit' | 'audit-queue';

// Changing the salt or the info layout changes every subkey: stored ciphertexts and indexes would be lost.
const SALT = Buffer.from('strongroom/subkey/v1');

export class Subkeys {
  // Keyed by numbers, not a joined string: a lookup per item allocates nothing.
  private readonly cache = new Map<number, Map<number, Partial<Record<Purpose, Buffer>>>>();

  // One view per tenant salt, each with its own cache; bounded by the number of tenants.
  private readonly salted = new Map<string, Subkeys>();

  constructor(
    /** `missing`, when given, is asked for a version `key` lacks (a reload of a keyring another tokenizer changed). */
    private readonly keyring: Pick<Keyring, 'key'> & { missing?: (version: number) => Buffer | undefined },
    /** Hex of the tenant's key salt; empty for the derivation of tenants made before salts. */
    private readonly salt = '',
  ) {}

  /** The subkeys of tenants with this key salt (an empty salt: these very subkeys). */
  withSalt(salt: Buffer): Subkeys {
    if (!salt.length) return this;
    const hex = salt.toString('hex');
    let view = this.salted.get(hex);
    if (!view) this.salted.set(hex, (view = new Subkeys(this.keyring, hex)));
    return view;
  }

  /** Drops what was derived from a retired version, in every salted view too. */
  forget(version: number): void {
    for (const byTenant of this.cache.get(version)?.values() ?? []) for (const k of Object.values(byTenant)) k?.fill(0);
    this.cache.delete(version);
    for (const view of this.salted.values()) view.forget(version);
  }

  /** undefined when the keyring lacks that version. */
  derive(version: number, tenantId: number, purpose: Purpose): Buffer | undefined {
    let byTenant = this.cache.get(version);
    let byPurpose = byTenant?.get(tenantId);
    const cached = byPurpose?.[purpose];
    if (cached) return cached;
    const master = this.keyring.key(version) ?? this.keyring.missing?.(version);
    // Unknown versions are not cached: a ciphertext header can name any of 2^32 of them.
    if (!master) return undefined;
    // `purpose` comes from a fixed set without `|` and the tenant id is an integer, so the info is unambiguous.
    const info = this.salt ? `${purpose}|tenant:${tenantId}|salt:${this.salt}` : `${purpose}|tenant:${tenantId}`;
    const key = Buffer.from(hkdfSync('sha256', master, SALT, info, 32));
    if (!byTenant) this.cache.set(version, (byTenant = new Map()));
    if (!byPurpose) byTenant.set(tenantId, (byPurpose = {}));
    byPurpose[purpose] = key;
    return key;
  }
}
