// SQL for the counts SystemGetSystemStats reports of one tenant.
import { TenantTables } from './tenant-tables.js';

export class StatsStore extends TenantTables {
  async counts(now: number): Promise<{ users: number; tokens: number; sessions: number }> {
    const [c] = await this.sql<{ users: number; tokens: number; sessions: number }>(
      `select (select count(*)::int from ${this.t}.users) as users, (select count(*)::int from ${this.t}.tokens) as tokens,
         (select count(*)::int from ${this.t}.sessions where expires > $1) as sessions`,
      [now],
    );
    return { users: c?.users ?? 0, tokens: c?.tokens ?? 0, sessions: c?.sessions ?? 0 };
  }

  /**
   * Fresh planner statistics for the people and their keys after a bulk load, as the tables' owner (ANALYZE needs
   * it, so not as the tenant's role): the planner's count of people afterwards.
   */
  async analysePeople(): Promise<number> {
    await this.asVault(`analyze ${this.t}.users, ${this.t}.subject_keys`);
    const [row] = await this.asVault<{ rows: number }>(`select greatest(reltuples, 0)::float8 as rows from pg_class where oid = $1::regclass`, [`${this.t}.users`]);
    return Number(row?.rows ?? 0);
  }

}
