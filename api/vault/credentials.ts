// Credentials: who is calling. Tokens are stored only as SHA-256 hashes and checked through a short-lived cache.
import { createHash, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isUniqueViolation } from '../store/errors.js';
import type { Database } from '../store/database.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import type { GlobalStores } from '../store/stores.js';
import type { XTokenListing } from '../store/credentials.js';
import { AuthenticationError, notFound } from '../errors.js';
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

/** The answer to an unknown xtoken id, and to an id of another tenant's xtoken (ids do not leak across tenants). */
export const XTOKEN_NOT_FOUND = 'The xtoken record was not found';

/** How long a replica may go on trusting a principal it has cached: the bound on revocation elsewhere. */
export const PRINCIPAL_CACHE_MS = 5_000;

export class Credentials {
  // Short TTL: a revoked or expired credential stops working within seconds on every replica.
  private readonly cache = new LRUCache<string, Principal>({ max: 10_000, ttl: PRINCIPAL_CACHE_MS });

  constructor(private readonly db: Database) {}


  /** The principal behind an X-Bunker-Token value, or 403 `Access denied`. */
  async authenticate(token: string | undefined): Promise<Principal> {
    if (!token) throw new AuthenticationError('missing token');
    if (token.length > 256) throw new AuthenticationError('malformed token');
    const hash = hashToken(token);
    let principal = this.cache.get(hash);
    if (!principal) {
      const row = await this.db.global().credentials.byHash(hash);
      if (!row) throw new AuthenticationError('unknown or revoked token');
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
    if (principal.expiresAt !== null && principal.expiresAt <= nowSeconds()) throw new AuthenticationError('expired token');
    return principal;
  }

  /** A new credential of `kind` in the tenant; the token is returned once and only its hash is stored. */
  async issue(
    kind: CredentialKind,
    tenantId: number,
    extra: { roleId?: number; userToken?: string; expiresAt?: number } = {},
    stores: GlobalStores = this.db.global(),
  ): Promise<string> {
    return (await this.issueWithId(kind, tenantId, extra, stores)).token;
  }

  /** As `issue`, with the credential's id: what XTokenRevoke and the xtoken lists name it by. */
  async issueWithId(
    kind: CredentialKind,
    tenantId: number,
    extra: { roleId?: number; userToken?: string; expiresAt?: number } = {},
    stores: GlobalStores = this.db.global(),
  ): Promise<{ token: string; id: string }> {
    const token = randomUUID();
    const id = randomUUID();
    await stores.credentials.insert(
      { id, hash: hashToken(token), kind, tenantId, roleId: extra.roleId ?? null, userToken: extra.userToken ?? null, expiresAt: extra.expiresAt ?? null },
      nowSeconds(),
    );
    return { token, id };
  }

  /**
   * Revokes one role or login xtoken by id in the caller's transaction: within `tenantId` (null: root, any tenant),
   * else 404, the same as for an id that never was. This process forgets it once the transaction commits; other
   * replicas within PRINCIPAL_CACHE_MS.
   */
  async revokeXToken(stores: GlobalStores, id: string, tenantId: number | null): Promise<{ kind: string; tenantId: number; userToken: string | null }> {
    const gone = await stores.credentials.removeXToken(id, tenantId);
    if (!gone) throw notFound(XTOKEN_NOT_FOUND);
    afterCommit(stores, () => this.forget((p) => p.credentialId === id));
    return { kind: gone.kind, tenantId: gone.tenantId, userToken: gone.userToken };
  }

  /**
   * Ends a session credential (a console sign-in's: expiring role xtoken or admin token) at once, here and, within
   * PRINCIPAL_CACHE_MS, on every replica. False for any other credential, which stays.
   */
  async endSession(principal: Principal): Promise<boolean> {
    if (principal.expiresAt === null || (principal.kind !== 'role' && principal.kind !== 'tenant-admin')) return false;
    const gone = await this.db.global().credentials.removeSession(principal.credentialId);
    this.forget((p) => p.credentialId === principal.credentialId);
    return gone !== null;
  }

  /** The tenant's live xtokens of a role: ids, kinds and times, never a secret or its hash. */
  xtokensOfRole(stores: GlobalStores, tenantId: number, roleId: number, now: number): Promise<XTokenListing[]> {
    return stores.credentials.xtokensOf(tenantId, { roleId }, now);
  }

  /** The tenant's live login xtokens of a person: ids, kinds and times, never a secret or its hash. */
  xtokensOfUser(stores: GlobalStores, tenantId: number, userToken: string, now: number): Promise<XTokenListing[]> {
    return stores.credentials.xtokensOf(tenantId, { userToken }, now);
  }

  /**
   * A person was removed in the stores' transaction, their login xtokens with them (UserStore): once it commits, this
   * process forgets their cached principals at once; other replicas let them lapse within PRINCIPAL_CACHE_MS.
   */
  forgetUserAfterCommit(stores: GlobalStores, tenantId: number, userToken: string): void {
    afterCommit(stores, () => this.forget((p) => p.kind === 'login' && p.tenantId === tenantId && p.userToken === userToken));
  }

  private forget(which: (principal: Principal) => boolean): void {
    for (const [hash, principal] of this.cache.entries()) if (which(principal)) this.cache.delete(hash);
  }

  /**
   * A new admin token for the tenant and every earlier one revoked, in one transaction: the old tokens never
   * outlive the new one's creation, and a failure keeps them. Cached principals of the old ones are forgotten.
   */
  async rotateTenantAdmins(tenantId: number): Promise<{ xtoken: string; revoked: number }> {
    const rotated = await this.db.writeGlobal(async (tx) => {
      const revoked = await this.revokeTenantAdmins(tenantId, tx);
      return { revoked, xtoken: await this.issue('tenant-admin', tenantId, {}, tx) };
    });
    this.forgetTenant(tenantId);
    return rotated;
  }

  /** Removes every admin token of the tenant (a new one is issued beside it by the caller). */
  async revokeTenantAdmins(tenantId: number, stores: GlobalStores = this.db.global()): Promise<number> {
    const removed = await stores.credentials.removeTenantAdmins(tenantId);
    this.forgetTenant(tenantId);
    return removed;
  }

  /** Drops this process's cached principals of a role at once (other replicas let them lapse within the TTL). */
  forgetRole(roleId: number): void {
    this.forget((principal) => principal.roleId === roleId);
  }

  /** Drops this process's cached principals of a tenant at once (other replicas let them lapse within the TTL). */
  forgetTenant(tenantId: number): void {
    this.forget((principal) => principal.tenantId === tenantId);
  }

  /**
   * Makes sure exactly the configured root token works. Without one, creates a root token on first start and
   * returns it so the caller can show it once; later starts return undefined.
   */
  async ensureRoot(configured: string | undefined): Promise<string | undefined> {
    const { credentials } = this.db.global();
    const now = nowSeconds();
    const root = (hash: string) => ({ id: randomUUID(), hash, kind: 'root', tenantId: MAIN_TENANT_ID, roleId: null, userToken: null, expiresAt: null });
    if (configured) {
      const hash = hashToken(configured);
      // A changed STRONGROOM_ROOT_TOKEN retires the old root token.
      await credentials.removeRootsExcept(hash);
      // Replicas starting together race here: the one that loses finds the row the other inserted.
      if (!(await credentials.byHash(hash))) {
        await credentials.insert(root(hash), now).catch((err: unknown) => {
          if (!isUniqueViolation(err)) throw err;
        });
      }
      return undefined;
    }
    if ((await credentials.countRoots()) > 0) return undefined;
    const token = randomUUID();
    await credentials.insert(root(hashToken(token)), now);
    return token;
  }
}

/**
 * Runs `fn` once the stores' transaction commits (at once outside one). Before the commit the credential is still there,
 * and a principal dropped earlier could be read and cached again.
 */
function afterCommit(stores: GlobalStores, fn: () => void): void {
  if (!stores.sql.onEnd('commit', fn)) fn();
}
