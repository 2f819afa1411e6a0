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

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

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

  async insert(row: CredentialRow, created: number): Promise<void> {
    await this.sql(
      `insert into ${this.g}.credentials (id, hash, kind, tenant_id, role_id, user_token, expires_at, created) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [row.id, row.hash, row.kind, row.tenantId, row.roleId, row.userToken, row.expiresAt, created],
    );
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
