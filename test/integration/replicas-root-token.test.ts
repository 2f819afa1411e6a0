// Replicas that start at the same moment with the same STRONGROOM_ROOT_TOKEN (a first install, or a rollout of a
// changed token) must all come up. Each replica's start runs Credentials.ensureRoot; here three of them run at
// once on one database, as three api processes do, without the processes around them. PostgreSQL only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../fixtures/database.js';
import { Database } from '../../api/store/database.js';
import { Credentials, hashToken } from '../../api/vault/credentials.js';

describe.skipIf(!usingPostgres())('replicas starting with one root token (PostgreSQL only: the embedded database belongs to one process)', () => {
  let testDb: TestDatabase;
  let replicas: Database[];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const log = pino({ level: 'silent' });
    replicas = [];
    for (let i = 0; i < 3; i++) replicas.push(await Database.open({ dataDir: '/nonexistent', databaseUrl: testDb.url, poolMax: 4, log }));
  });
  afterAll(async () => {
    for (const db of replicas ?? []) await db.close();
    await testDb?.drop();
  });

  const roots = async () => (await replicas[0]!.global().sql.query<{ hash: string }>(`select hash from strongroom.credentials where kind = 'root'`)).map((r) => r.hash);

  it('leave exactly the configured root token once the replicas have started one after another', async () => {
    const token = randomUUID();
    for (const db of replicas) expect(await new Credentials(db).ensureRoot(token)).toBeUndefined();
    expect(await roots()).toEqual([hashToken(token)]);
  });

  // Replicas that start together with a new token race on credentials_hash_key: the loser must find the winner's
  // row, not fail to start. Rounds repeat the race; one failed start fails the test.
  it('bring every replica up when they start at the same moment with a new root token', async () => {
    for (let round = 0; round < 20; round++) {
      const token = randomUUID();
      const started = await Promise.allSettled(replicas.map((db) => new Credentials(db).ensureRoot(token)));
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason)), `round ${round}`).toEqual([]);
      expect(await roots()).toEqual([hashToken(token)]);
    }
  });
});
