// SQL for credentials: SHA-256 hashes of tokens with who they stand for; the tokens themselves are never stored.
import { GlobalTables } from './global-tables.js';

export interface CredentialRow {
  id: string;
  hash: string;
  kind: string;
  tenantId: number;
  roleId: number | null;
  userToken: string | null;
  expiresAt: number | null;
}

/** What an admin may see of an xtoken: never its hash. */
export interface XTokenListing {
  xtokenid: string;
  kind: string;
  /** Unix seconds; 0 for a credential that does not expire. */
  expires: number;
  created: number;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toListing(r: Record<string, unknown>): XTokenListing {
  return { xtokenid: r.id as string, kind: r.kind as string, expires: num(r.expires_at) ?? 0, created: Number(r.created) };
}

function toRow(r: Record<string, unknown>): CredentialRow {
  return {
    id: r.id as string,
    hash: r.hash as string,
    kind: r.kind as string,
    tenantId: Number(r.tenant_id),
    roleId: num(r.role_id),
    userToken: (r.user_token as string | null) ?? null,
    expiresAt: num(r.expires_at),
  };
}

export class CredentialStore extends GlobalTables {
  async byHash(hash: string): Promise<CredentialRow | null> {
    const [r] = await this.sql(`select id, hash, kind, tenant_id, role_id, user_token, expires_at from ${this.g}.credentials where hash = $1`, [hash]);
    return r ? toRow(r) : null;
  }

  async byId(id: string): Promise<CredentialRow | null> {
    const [r] = await this.sql(`select id, hash, kind, tenant_id, role_id, user_token, expires_at from ${this.g}.credentials where id = $1`, [id]);
    return r ? toRow(r) : null;
  }

  async insert(row: CredentialRow, created: number): Promise<void> {
    await this.sql(
      `insert into ${this.g}.credentials (id, hash, kind, tenant_id, role_id, user_token, expires_at, created) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [row.id, row.hash, row.kind, row.tenantId, row.roleId, row.userToken, row.expiresAt, created],
    );
  }

  /**
   * Removes one xtoken (a role or login credential; never a root or tenant admin token) by its id, in the tenant
   * given (null: any tenant); answers what it was, or null when there was no such xtoken there.
   */
  async removeXToken(id: string, tenantId: number | null): Promise<Pick<CredentialRow, 'kind' | 'tenantId' | 'roleId' | 'userToken'> | null> {
    const [r] = await this.sql(
      `delete from ${this.g}.credentials where id = $1 and kind in ('role', 'login') and ($2::int is null or tenant_id = $2)
       returning kind, tenant_id, role_id, user_token`,
      [id, tenantId],
    );
    return r ? { kind: r.kind as string, tenantId: Number(r.tenant_id), roleId: num(r.role_id), userToken: (r.user_token as string | null) ?? null } : null;
  }

  /**
   * A session credential by id: a role xtoken or an admin token with an expiry (what the console's sign-in issues;
   * a tenant's own admin tokens never expire). Null when there is no such credential.
   */
  async removeSession(id: string): Promise<{ kind: string; tenantId: number } | null> {
    const [r] = await this.sql(
      `delete from ${this.g}.credentials where id = $1 and kind in ('role', 'tenant-admin') and expires_at is not null returning kind, tenant_id`,
      [id],
    );
    return r ? { kind: r.kind as string, tenantId: Number(r.tenant_id) } : null;
  }

  /** The tenant's live xtokens of a role, or login xtokens of a person, oldest first: ids and times, never a hash. */
  async xtokensOf(tenantId: number, of: { roleId: number } | { userToken: string }, now: number): Promise<XTokenListing[]> {
    const [kind, column, value] = 'roleId' in of ? ['role', 'role_id', of.roleId] : ['login', 'user_token', of.userToken];
    return (await this.sql(
      `select id, kind, expires_at, created from ${this.g}.credentials
       where tenant_id = $1 and kind = '${kind}' and ${column} = $2 and (expires_at is null or expires_at > $3) order by created, id`,
      [tenantId, value, now],
    )).map(toListing);
  }

  /**
   * Removes the login xtokens of people of the tenant, in the caller's transaction (the tenant's database role may:
   * see Global0005Credentials). Run after the people's own removal, so it sees an xtoken committed meanwhile.
   */
  async removeLoginsOf(tenantId: number, userTokens: string[]): Promise<void> {
    if (!userTokens.length) return;
    await this.sql(`delete from ${this.g}.credentials where tenant_id = $1 and kind = 'login' and user_token = any($2::uuid[])`, [tenantId, userTokens]);
  }

  /** Removes every admin token of the tenant; answers how many went. */
  async removeTenantAdmins(tenantId: number): Promise<number> {
    return (await this.sql(`delete from ${this.g}.credentials where kind = 'tenant-admin' and tenant_id = $1 returning 1`, [tenantId])).length;
  }

  /** Removes every root token but the one with this hash. */
  async removeRootsExcept(hash: string): Promise<void> {
    await this.sql(`delete from ${this.g}.credentials where kind = 'root' and hash <> $1`, [hash]);
  }

  async countRoots(): Promise<number> {
    const [r] = await this.sql<{ n: number }>(`select count(*)::int as n from ${this.g}.credentials where kind = 'root'`);
    return r?.n ?? 0;
  }
}
