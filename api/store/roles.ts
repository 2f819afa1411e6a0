// SQL for roles, policies and their links in the global schema.
import { GlobalTables } from './global-tables.js';

export interface RoleRow {
  roleid: number;
  rolename: string;
  roledesc: string;
}

export interface PolicyRow {
  policyid: number;
  policyname: string;
  policydesc: string;
  policy: unknown;
}

export class RoleStore extends GlobalTables {
  async createRole(name: string, desc: string, now: number): Promise<number> {
    const [r] = await this.sql<{ id: number }>(`insert into ${this.g}.roles (name, description, created) values ($1, $2, $3) returning id`, [name, desc, now]);
    return r!.id;
  }

  async role(by: { id?: number | undefined; name?: string | undefined }): Promise<RoleRow | null> {
    const [r] = await this.sql<RoleRow>(`select id as roleid, name as rolename, description as roledesc from ${this.g}.roles where ${by.id !== undefined ? 'id = $1' : 'name = $1'}`,
      [by.id ?? by.name],
    );
    return r ?? null;
  }

  async updateRole(id: number, set: { name?: string | undefined; desc?: string | undefined }): Promise<void> {
    await this.sql(`update ${this.g}.roles set name = coalesce($2, name), description = coalesce($3, description) where id = $1`, [id, set.name ?? null, set.desc ?? null]);
  }

  async createPolicy(name: string, desc: string, document: unknown, now: number): Promise<number> {
    const [r] = await this.sql<{ id: number }>(`insert into ${this.g}.policies (name, description, document, created) values ($1, $2, $3::jsonb, $4) returning id`,
      [name, desc, JSON.stringify(document), now],
    );
    return r!.id;
  }

  async policy(by: { id?: number | undefined; name?: string | undefined }): Promise<PolicyRow | null> {
    const [r] = await this.sql<PolicyRow>(`select id as policyid, name as policyname, description as policydesc, document as policy from ${this.g}.policies where ${by.id !== undefined ? 'id = $1' : 'name = $1'}`,
      [by.id ?? by.name],
    );
    return r ?? null;
  }

  async updatePolicy(id: number, set: { name?: string | undefined; desc?: string | undefined; document?: unknown }): Promise<void> {
    await this.sql(`update ${this.g}.policies set name = coalesce($2, name), description = coalesce($3, description), document = coalesce($4::jsonb, document) where id = $1`,
      [id, set.name ?? null, set.desc ?? null, set.document === undefined ? null : JSON.stringify(set.document)],
    );
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
  async documentsOf(roleId: number): Promise<{ rolename: string; documents: unknown[] } | null> {
    const rows = await this.sql<{ rolename: string; document: unknown }>(`select r.name as rolename, p.document from ${this.g}.roles r
       left join ${this.g}.role_policies rp on rp.role_id = r.id left join ${this.g}.policies p on p.id = rp.policy_id where r.id = $1`,
      [roleId],
    );
    if (!rows.length) return null;
    return { rolename: rows[0]!.rolename, documents: rows.map((r) => r.document).filter((d) => d !== null) };
  }
}
