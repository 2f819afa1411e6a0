// Credentials: who is calling. Tokens are stored only as SHA-256 hashes and checked through a short-lived cache.
import { createHash, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../store/database.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import { GlobalStores } from '../store/stores.js';
import { forbidden } from '../errors.js';
import { nowSeconds } from './durations.js';

export type CredentialKind = 'root' | 'tenant-admin' | 'role' | 'login';
/** Who calls: a stored credential, or nobody (`public`) for the contract's public operations. */
export type PrincipalKind = CredentialKind | 'public';

export interface Principal {
  credentialId: string;
  kind: PrincipalKind;
  tenantId: number;
  roleId: number | null;
  userToken: string | null;
  expiresAt: number | null;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export class Credentials {
  // Short TTL: a revoked or expired credential stops working within seconds on every replica.
  private readonly cache = new LRUCache<string, Principal>({ max: 10_000, ttl: 5_000 });

  constructor(private readonly db: Database) {}

  private stores(em: EntityManager = this.db.global()): GlobalStores {
    return new GlobalStores(em);
  }

  /** The principal behind an X-Bunker-Token value, or 403 `Access denied`. */
  async authenticate(token: string | undefined): Promise<Principal> {
    if (!token || token.length > 256) throw forbidden();
    const hash = hashToken(token);
    let principal = this.cache.get(hash);
    if (!principal) {
      const row = await this.stores().credentials.byHash(hash);
      if (!row) throw forbidden();
      principal = {
        credentialId: row.id,
        kind: row.kind as CredentialKind,
        tenantId: row.tenantId,
        roleId: row.roleId,
        userToken: row.userToken,
        expiresAt: row.expiresAt,
      };
      this.cache.set(hash, principal);
    }
    if (principal.expiresAt !== null && principal.expiresAt <= nowSeconds()) throw forbidden();
    return principal;
  }

  /** A new credential of `kind` in the tenant; the token is returned once and only its hash is stored. */
  async issue(
    kind: CredentialKind,
    tenantId: number,
    extra: { roleId?: number; userToken?: string; expiresAt?: number } = {},
    em: EntityManager = this.db.global(),
  ): Promise<string> {
    const token = randomUUID();
    await this.stores(em).credentials.insert(
      { id: randomUUID(), hash: hashToken(token), kind, tenantId, roleId: extra.roleId ?? null, userToken: extra.userToken ?? null, expiresAt: extra.expiresAt ?? null },
      nowSeconds(),
    );
    return token;
  }

  /** Removes every admin token of the tenant (a new one is issued beside it by the caller). */
  async revokeTenantAdmins(tenantId: number, em: EntityManager = this.db.global()): Promise<number> {
    const removed = await this.stores(em).credentials.removeTenantAdmins(tenantId);
    this.forgetTenant(tenantId);
    return removed;
  }

  /** Drops this process's cached principals of a role at once (other replicas let them lapse within the TTL). */
  forgetRole(roleId: number): void {
    for (const [hash, principal] of this.cache.entries()) if (principal.roleId === roleId) this.cache.delete(hash);
  }

  /** Drops this process's cached principals of a tenant at once (other replicas let them lapse within the TTL). */
  forgetTenant(tenantId: number): void {
    for (const [hash, principal] of this.cache.entries()) if (principal.tenantId === tenantId) this.cache.delete(hash);
  }

  /**
   * Makes sure exactly the configured root token works. Without one, creates a root token on first start and
   * returns it so the caller can show it once; later starts return undefined.
   */
  async ensureRoot(configured: string | undefined): Promise<string | undefined> {
    const { credentials } = this.stores();
    const now = nowSeconds();
    const root = (hash: string) => ({ id: randomUUID(), hash, kind: 'root', tenantId: MAIN_TENANT_ID, roleId: null, userToken: null, expiresAt: null });
    if (configured) {
      const hash = hashToken(configured);
      // A changed STRONGROOM_ROOT_TOKEN retires the old root token.
      await credentials.removeRootsExcept(hash);
      if (!(await credentials.byHash(hash))) await credentials.insert(root(hash), now);
      return undefined;
    }
    if ((await credentials.countRoots()) > 0) return undefined;
    const token = randomUUID();
    await credentials.insert(root(hashToken(token)), now);
    return token;
  }
}
