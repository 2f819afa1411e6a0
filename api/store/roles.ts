// SQL for roles, policies and their links in the global schema.
import { GlobalTables } from './global-tables.js';

export interface RoleRow {
  roleid: number;
  rolename: string;
  roledesc: string;
  /** The owner mark (e.g. a Kubernetes resource's uid); null when nobody claimed it. */
  managedby: string | null;
}

export interface PolicyRow {
  policyid: number;
  policyname: string;
  policydesc: string;
  policy: unknown;
  managedby: string | null;
}

/** The owner mark in an update, from parameter `$n`: null keeps it, an empty string removes it, other text replaces it. */
const markUpdate = (n: number) => `managedby = case when $${n}::text is null then managedby else nullif($${n}::text, '') end`;

export class RoleStore extends GlobalTables {
  async createRole(name: string, desc: string, managedby: string | null, now: number): Promise<number> {
    const [r] = await this.sql<{ id: number }>(`insert into ${this.g}.roles (name, description, managedby, created) values ($1, $2, $3, $4) returning id`, [
      name,
      desc,
      managedby,
      now,
    ]);
    return r!.id;
  }

  async role(by: { id?: number | undefined; name?: string | undefined }): Promise<RoleRow | null> {
    const [r] = await this.sql<RoleRow>(`select id as roleid, name as rolename, description as roledesc, managedby from ${this.g}.roles where ${by.id !== undefined ? 'id = $1' : 'name = $1'}`,
      [by.id ?? by.name],
    );
    return r ?? null;
  }

  async updateRole(id: number, set: { name?: string | undefined; desc?: string | undefined; managedby?: string | undefined }): Promise<void> {
    await this.sql(`update ${this.g}.roles set name = coalesce($2, name), description = coalesce($3, description), ${markUpdate(4)} where id = $1`, [
      id,
      set.name ?? null,
      set.desc ?? null,
      set.managedby ?? null,
    ]);
  }

  /** The policies linked to the role, by id. */
  async policiesOf(roleId: number): Promise<{ policyid: number; policyname: string }[]> {
    return this.sql(`select p.id as policyid, p.name as policyname from ${this.g}.role_policies rp join ${this.g}.policies p on p.id = rp.policy_id where rp.role_id = $1 order by p.id`, [
      roleId,
    ]);
  }

  async createPolicy(name: string, desc: string, document: unknown, managedby: string | null, now: number): Promise<number> {
    const [r] = await this.sql<{ id: number }>(
      `insert into ${this.g}.policies (name, description, document, managedby, created) values ($1, $2, $3::jsonb, $4, $5) returning id`,
      [name, desc, JSON.stringify(document), managedby, now],
    );
    return r!.id;
  }

  async policy(by: { id?: number | undefined; name?: string | undefined }): Promise<PolicyRow | null> {
    const [r] = await this.sql<PolicyRow>(`select id as policyid, name as policyname, description as policydesc, document as policy, managedby from ${this.g}.policies where ${by.id !== undefined ? 'id = $1' : 'name = $1'}`,
      [by.id ?? by.name],
    );
    return r ?? null;
  }

  async updatePolicy(id: number, set: { name?: string | undefined; desc?: string | undefined; document?: unknown; managedby?: string | undefined }): Promise<void> {
    await this.sql(
      `update ${this.g}.policies set name = coalesce($2, name), description = coalesce($3, description), document = coalesce($4::jsonb, document), ${markUpdate(5)} where id = $1`,
      [id, set.name ?? null, set.desc ?? null, set.document === undefined ? null : JSON.stringify(set.document), set.managedby ?? null],
    );
  }

  /** A page of the roles, by id, each with its owner mark and linked policies; and how many there are. */
  async roles(offset: number, limit: number): Promise<{ total: number; rows: (RoleRow & { policies: { policyid: number; policyname: string }[] })[] }> {
    const rows = await this.sql<RoleRow & { policies: { policyid: number; policyname: string }[]; total: string }>(
      `select r.id as roleid, r.name as rolename, r.description as roledesc, r.managedby, count(*) over () as total,
              coalesce((select json_agg(json_build_object('policyid', p.id, 'policyname', p.name) order by p.id)
                        from ${this.g}.role_policies rp join ${this.g}.policies p on p.id = rp.policy_id where rp.role_id = r.id), '[]') as policies
       from ${this.g}.roles r order by r.id offset $1 limit $2`,
      [offset, limit],
    );
    const total = rows.length ? Number(rows[0]!.total) : offset === 0 ? 0 : Number((await this.sql<{ n: string }>(`select count(*) as n from ${this.g}.roles`))[0]!.n);
    return { total, rows: rows.map(({ total: _total, ...r }) => r) };
  }

  async policies(): Promise<Omit<PolicyRow, 'policy'>[]> {
    return this.sql(`select id as policyid, name as policyname, description as policydesc from ${this.g}.policies order by id`);
  }

  async link(roleId: number, policyId: number): Promise<void> {
    await this.sql(`insert into ${this.g}.role_policies (role_id, policy_id) values ($1, $2) on conflict do nothing`, [roleId, policyId]);
  }

  async unlink(roleId: number, policyId: number): Promise<void> {
    await this.sql(`delete from ${this.g}.role_policies where role_id = $1 and policy_id = $2`, [roleId, policyId]);
  }

  /** Removes the role; its links and its xtokens (credentials) go with it (cascades). */
  async deleteRole(id: number): Promise<void> {
    await this.sql(`delete from ${this.g}.roles where id = $1`, [id]);
  }

  /** Removes the policy; its links go with it. */
  async deletePolicy(id: number): Promise<void> {
    await this.sql(`delete from ${this.g}.policies where id = $1`, [id]);
  }

  /** The role's name and the documents of every policy linked to it. */
  async documentsOf(roleId: number): Promise<{ rolename: string; documents: { policyname: string; document: unknown }[] } | null> {
    const rows = await this.sql<{ rolename: string; policyname: string; document: unknown }>(`select r.name as rolename, p.name as policyname, p.document from ${this.g}.roles r
       left join ${this.g}.role_policies rp on rp.role_id = r.id left join ${this.g}.policies p on p.id = rp.policy_id where r.id = $1`,
      [roleId],
    );
    if (!rows.length) return null;
    return { rolename: rows[0]!.rolename, documents: rows.filter((r) => r.document !== null).map((r) => ({ policyname: r.policyname, document: r.document })) };
  }
}
