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

}
