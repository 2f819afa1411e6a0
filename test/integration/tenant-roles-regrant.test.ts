// Every replica that starts grants each tenant's database role its rights again (a revoke of every function, then
// the grants). Run as separate statements, as 0.1.0 does, a call on another replica could land between the revoke and
// the grant and fail with `permission denied for function audit_enqueue` (a 500, seen in the rolling-upgrade test).
// This release grants in one transaction, and the tenant role also holds its rights through a standing role that is
// never revoked, so that even 0.1.0's way of granting leaves no gap: a watcher asks PostgreSQL for the rights the whole
// time. PostgreSQL only: the embedded database has no tenant roles.
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../fixtures/database.js';
import { Database } from '../../api/store/database.js';
import { connectionsOf, PoolSql } from '../../api/store/sql.js';
import { grantTenantRole } from '../../api/store/tenant-roles.js';

const log = pino({ level: 'silent' });
const ENQUEUE = 'tenant_1.audit_enqueue(uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[])';
let testDb: TestDatabase | undefined;
afterAll(async () => testDb?.drop());

describe.skipIf(!usingPostgres())('a tenant role granted again as a replica starts (PostgreSQL only: the embedded database has no tenant roles)', () => {
  it('never lacks, even for a moment, the rights its calls use, whoever grants them again and however', async () => {
    testDb = await createTestDatabase();
    const url = testDb.url!;
    const first = await Database.open({ dataDir: '/nonexistent', databaseUrl: url, poolMax: 2, log });
    const role = first.roleOf!(1);
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    const missing: string[] = [];
    let checks = 0;
    let starting = true;
    const watching = (async () => {
      while (starting) {
        const { rows } = await watcher.query<{ enqueue: boolean; queue: boolean; queued: boolean; published: boolean; users: boolean }>(
          `select has_function_privilege($1, $2, 'execute') as enqueue,
                  has_column_privilege($1, 'tenant_1.audit_queue', 'uuid', 'select') as queue,
                  has_column_privilege($1, 'tenant_1.audit_queue', 'mac', 'insert') as queued,
                  has_column_privilege($1, 'tenant_1.privacy_events', 'data', 'insert') as published,
                  has_schema_privilege($1, 'tenant_1', 'usage') as users`,
          [role, ENQUEUE],
        );
        checks++;
        for (const [right, held] of Object.entries(rows[0]!)) if (!held) missing.push(right);
      }
    })();
    try {
      // Each start grants every tenant's role again, under the migration lock, as a replica's does.
      for (let i = 0; i < 6; i++) await (await Database.open({ dataDir: '/nonexistent', databaseUrl: url, poolMax: 2, log })).close();
      // As 0.1.0 grants: each statement on its own, the revoke committed before the grant.
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      for (let i = 0; i < 30; i++) await grantTenantRole(new PoolSql(() => connectionsOf(pool)), { tenantId: 1, role });
      await pool.end();
    } finally {
      starting = false;
      await watching;
      await watcher.end();
      await first.close();
    }
    expect(checks).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });
});
