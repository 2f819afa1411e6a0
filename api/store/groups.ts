// SQL for the groups of one tenant schema and their memberships.
import { TenantTables } from './tenant-tables.js';

export interface GroupRow {
  groupid: number;
  groupname: string;
  groupdesc: string;
  grouptype: string;
}

const SELECT = 'select id as groupid, name as groupname, description as groupdesc, type as grouptype';

export class GroupStore extends TenantTables {
  async create(name: string, desc: string, type: string, now: number): Promise<number> {
    const [r] = await this.sql<{ id: number }>(`insert into ${this.t}.groups (name, description, type, created) values ($1, $2, $3, $4) returning id`, [name, desc, type, now]);
    return r!.id;
  }

  async find(by: { id?: number | undefined; name?: string | undefined }): Promise<GroupRow | null> {
    const [r] = await this.sql<GroupRow>(`${SELECT} from ${this.t}.groups where ${by.id !== undefined ? 'id = $1' : 'name = $1'}`, [by.id ?? by.name]);
    return r ?? null;
  }

  async all(): Promise<GroupRow[]> {
    return this.sql<GroupRow>(`${SELECT} from ${this.t}.groups order by id`);
  }

  async update(id: number, set: { name?: string | undefined; desc?: string | undefined; type?: string | undefined }): Promise<void> {
    await this.sql(`update ${this.t}.groups set name = coalesce($2, name), description = coalesce($3, description), type = coalesce($4, type) where id = $1`, [
      id,
      set.name ?? null,
      set.desc ?? null,
      set.type ?? null,
    ]);
  }

  async remove(id: number): Promise<void> {
    await this.sql(`delete from ${this.t}.groups where id = $1`, [id]);
  }

  /** Adds the users to the group, or changes their role in it. */
  async addMembers(groupId: number, userTokens: string[], roleId: number | null): Promise<void> {
    if (!userTokens.length) return;
    await this.sql(`insert into ${this.t}.group_members (group_id, user_token, role_id) select $1, unnest($2::uuid[]), $3
       on conflict (group_id, user_token) do update set role_id = excluded.role_id`,
      [groupId, userTokens, roleId],
    );
  }

  async removeMember(groupId: number, userToken: string): Promise<boolean> {
    const rows = await this.sql(`delete from ${this.t}.group_members where group_id = $1 and user_token = $2 returning user_token`, [groupId, userToken]);
    return rows.length > 0;
  }

  /** The user's memberships: group and role ids. */
  async membershipsOf(userToken: string): Promise<{ groupId: number; roleId: number | null }[]> {
    return this.sql(`select group_id as "groupId", role_id as "roleId" from ${this.t}.group_members where user_token = $1`, [userToken]);
  }

  async groupsOf(userToken: string): Promise<GroupRow[]> {
    return this.sql<GroupRow>(`select g.id as groupid, g.name as groupname, g.description as groupdesc, g.type as grouptype
       from ${this.t}.group_members m join ${this.t}.groups g on g.id = m.group_id where m.user_token = $1 order by g.id`,
      [userToken],
    );
  }

  /** A page of the group's live members in membership order, with their role, and how many there are. */
  async members(groupId: number, now: number, offset: number, limit: number): Promise<{ total: number; rows: { token: string; roleid: number | null }[] }> {
    // As UserStore's `live`: expired people, and people whose key is gone, are listed nowhere.
    const live = `(u.expires_at is null or u.expires_at > $2) and exists (select 1 from ${this.t}.subject_keys k where k.token = u.token and k.erased is null)`;
    const from = `from ${this.t}.group_members m join ${this.t}.users u on u.token = m.user_token where m.group_id = $1 and ${live}`;
    const [count] = await this.sql<{ n: number }>(`select count(*)::int as n ${from}`, [groupId, now]);
    const rows = await this.sql<{ token: string; roleid: number | null }>(`select u.token, m.role_id as roleid ${from} order by u.seq offset $3 limit $4`, [
      groupId,
      now,
      offset,
      limit,
    ]);
    return { total: Number(count?.n ?? 0), rows };
  }
}
