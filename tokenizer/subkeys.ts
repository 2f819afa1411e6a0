// Per-tenant subkeys, derived with HKDF-SHA256 from a master key version, the tenant id and a purpose.
import { hkdfSync } from 'node:crypto';
import type { Keyring } from './keyring.js';

export type Purpose = 'record' | 'index' | 'fpe' | 'dedupe';

const SALT = Buffer.from('strongroom/subkey/v1');

export class Subkeys {
  private readonly cache = new Map<string, Buffer>();

  constructor(private readonly keyring: Keyring) {}

  /** undefined when the keyring lacks that version. */
  derive(version: number, tenantId: number, purpose: Purpose): Buffer | undefined {
    const id = `${version}:${tenantId}:${purpose}`;
    let key = this.cache.get(id);
    if (!key) {
      const master = this.keyring.key(version);
      if (!master) return undefined;
      key = Buffer.from(hkdfSync('sha256', master, SALT, `${purpose}|tenant:${tenantId}`, 32));
      this.cache.set(id, key);
    }
    return key;
  }
}
