// Finding users by an identity without a mode (UserSearch), and across tenants (the System operations).
import type { Services } from './services.js';
import type { UserRow } from '../store/users.js';
import type { GlobalStores, Stores } from '../store/stores.js';
import type { IndexMode } from './identities.js';

/** An address searches email; anything else searches login, phone and custom (exact matches of hashed indexes). */
export function searchModes(identity: string): IndexMode[] {
  return identity.includes('@') ? ['email'] : ['login', 'phone', 'custom'];
}

export interface TenantRef {
  tenantid: number;
  tenantname: string;
}

/** Every tenant, or the one named by id or name (none when it does not exist). */
export async function tenantsNamed(
  services: Services,
  ref: { tenantid?: number | undefined; tenantname?: string | undefined },
  stores: GlobalStores = services.db.global(),
): Promise<TenantRef[]> {
  const rows = (await stores.tenants.all()).map((t): TenantRef => ({ tenantid: t.id, tenantname: t.name }));
  const named = ref.tenantid !== undefined || ref.tenantname !== undefined;
  // A search across tenants passes over those whose own KEK was revoked (the others keep serving); one named
  // explicitly fails closed (503 `The tenant's key is unavailable`).
  return rows.filter(
    (t) =>
      (ref.tenantid === undefined || t.tenantid === ref.tenantid) &&
      (ref.tenantname === undefined || t.tenantname === ref.tenantname) &&
      (named || !services.tenantKeks.failsClosed(t.tenantid)),
  );
}

/**
 * The live users of one tenant whose index of one of `modes` equals `identity`, each once. A write passes its
 * transaction's stores (on the embedded database a second connection would wait for the first forever).
 */
export async function findInTenant(
  services: Services,
  tenantId: number,
  { modes, identity }: { modes: IndexMode[]; identity: string },
  now: number,
  stores: Stores = services.db.stores(tenantId),
): Promise<UserRow[]> {
  const { users } = services;
  const hashes = await users.lookupHashes(tenantId, modes.map((mode) => ({ mode, identity })));
  const wanted: Partial<Record<IndexMode, Buffer[]>> = {};
  modes.forEach((m, i) => {
    if (hashes[i]) (wanted[m] ??= []).push(hashes[i]!);
  });
  return stores.users.byAnyIndex(wanted, now);
}
