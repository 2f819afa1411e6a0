// Write transactions of our own (Database.writeTransaction): BEGIN and the tenant's role travel with the first
// statement, its parameters written into its text; COMMIT travels with the last. A value written out must be the
// value pg would have sent as a parameter, whatever its bytes: the oracle is the same statement with parameters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cases } from '../fixtures/sql-values.js';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';
import { Database, MAIN_TENANT_ID } from '../../api/store/database.js';

let testDb: TestDatabase;
let db: Database;
let dataDir: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'sr-owntx-'));
  db = await Database.open({ dataDir, databaseUrl: testDb.url, poolMax: 4, log: pino({ level: 'silent' }) });
  await db.global().sql.query('create table if not exists public.owntx (id serial primary key, v text)');
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a write transaction of our own', () => {
  for (const [sql, params] of cases) {
    it(`answers the first and the last statement as pg answers with parameters: ${sql}`, async () => {
      await fc.assert(
        fc.asyncProperty(params, async (values) => {
          const oracle = await db.global().sql.query(sql, values);
          const first = await db.write(MAIN_TENANT_ID, false, (tx) => tx.sql.query(sql, values));
          const last = await db.write(MAIN_TENANT_ID, false, async (tx) => (await tx.sql.query('select 1'), tx.sql.queryThenCommit(sql, values)));
          expect(first).toEqual(oracle);
          expect(last).toEqual(oracle);
        }),
        { numRuns: 60 },
      );
    });
  }

  it('refuses a NUL in text as pg does (22021), instead of cutting the statement at it', async () => {
    const expected = await db.global().sql.query('select $1::text', ['a\0b']).then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    );
    expect(expected).toBe(process.env.DATABASE_URL ? '22021' : expected);
    const got = await db.write(MAIN_TENANT_ID, false, (tx) => tx.sql.query('select $1::text', ['a\0b'])).then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    );
    expect(got).toBe(expected);
  });

  it('sends parameters too large to write out as parameters, BEGIN and COMMIT alone', async () => {
    const big = 'x'.repeat(600_000);
    const [row] = await db.write(MAIN_TENANT_ID, false, (tx) => tx.sql.queryThenCommit<{ n: number }>('select length($1::text) as n', [big]));
    expect(Number(row!.n)).toBe(600_000);
  });

  it('is one transaction: its statements see each other, and a failure anywhere leaves nothing', async () => {
    const count = async (v: string) => Number((await db.global().sql.query<{ n: string }>('select count(*) as n from public.owntx where v = $1', [v]))[0]!.n);
    await db.write(MAIN_TENANT_ID, false, async (tx) => {
      await tx.sql.query('insert into public.owntx (v) values ($1)', ['kept']);
      expect(Number((await tx.sql.query<{ n: string }>('select count(*) as n from public.owntx where v = $1', ['kept']))[0]!.n)).toBe(1);
      await tx.sql.queryThenCommit('insert into public.owntx (v) values ($1)', ['kept']);
    });
    expect(await count('kept')).toBe(2);
    for (const failAt of ['first', 'middle', 'last', 'after'] as const) {
      const v = `lost-${failAt}`;
      const run = db.write(MAIN_TENANT_ID, false, async (tx) => {
        await tx.sql.query(failAt === 'first' ? 'insert into public.owntx (v) values ($1::int)' : 'insert into public.owntx (v) values ($1)', [v]);
        await tx.sql.query(failAt === 'middle' ? 'select 1/0' : 'insert into public.owntx (v) values ($1)', [failAt === 'middle' ? undefined : v].filter((x) => x !== undefined));
        if (failAt === 'after') throw new Error('the work failed');
        await tx.sql.queryThenCommit(failAt === 'last' ? 'insert into public.owntx (id, v) values (1, $1)' : 'insert into public.owntx (v) values ($1)', [v]);
      });
      await expect(run).rejects.toBeDefined();
      expect(await count(v)).toBe(0);
    }
  });

  it('refuses a statement after the one that committed, and tells commit and rollback apart once', async () => {
    const seen: string[] = [];
    await expect(
      db.write(MAIN_TENANT_ID, false, async (tx) => {
        expect(tx.sql.inTransaction).toBe(true);
        tx.sql.onEnd('commit', () => seen.push('commit'));
        tx.sql.onEnd('rollback', () => seen.push('rollback'));
        await tx.sql.queryThenCommit('insert into public.owntx (v) values ($1)', ['committed']);
        await tx.sql.query('select 1');
      }),
    ).rejects.toThrow(/after the end of the transaction/);
    expect(seen).toEqual(['commit']);
    expect(Number((await db.global().sql.query<{ n: string }>("select count(*) as n from public.owntx where v = 'committed'"))[0]!.n)).toBe(1);
    const rolled: string[] = [];
    await expect(
      db.write(MAIN_TENANT_ID, false, async (tx) => {
        tx.sql.onEnd('commit', () => rolled.push('commit'));
        tx.sql.onEnd('rollback', () => rolled.push('rollback'));
        await tx.sql.query('select 1/0');
      }),
    ).rejects.toBeDefined();
    expect(rolled).toEqual(['rollback']);
  });

  it('keeps at most 200 plans per connection, and answers the same past them', async () => {
    // 250 texts, each run as the first, a middle and the last statement: past the connection's room they are
    // written out instead of prepared, and every answer is still the oracle's.
    for (let i = 0; i < 250; i++) {
      const sql = `select $1::text || '-${i}' as v, $2::bytea as b`;
      const values = [`x'\\${i}`, Buffer.from([i % 256, 0, 39, 92])];
      const oracle = await db.global().sql.query(sql, values);
      const got = await db.write(MAIN_TENANT_ID, false, async (tx) => [await tx.sql.query(sql, values), await tx.sql.query(sql, values), await tx.sql.queryThenCommit(sql, values)]);
      expect(got).toEqual([oracle, oracle, oracle]);
    }
    const kept = await db.write(MAIN_TENANT_ID, false, (tx) => tx.sql.query<{ n: string }>('select count(*) as n from pg_prepared_statements'));
    expect(Number(kept[0]!.n)).toBeGreaterThan(0);
    expect(Number(kept[0]!.n)).toBeLessThanOrEqual(200);
  });

  it('keeps the order of statements called at once: the first called carries BEGIN', async () => {
    await db.write(MAIN_TENANT_ID, false, async (tx) => {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => tx.sql.query<{ i: number }>('select $1::int as i, txid_current() as x', [i])));
      expect(results.map((r) => r[0]!.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(new Set(results.map((r) => String((r[0] as unknown as { x: unknown }).x))).size).toBe(1);
    });
  });

  it('runs statements PREPARE does not take (a schema, a DO block) first and last', async () => {
    await db.write(MAIN_TENANT_ID, false, async (tx) => {
      await tx.sql.query('create schema if not exists owntx_ddl');
      await tx.sql.queryThenCommit("do $$ begin perform 1; end $$");
    });
    await db.write(MAIN_TENANT_ID, false, (tx) => tx.sql.queryThenCommit('drop schema if exists owntx_ddl cascade'));
    expect(await db.global().sql.query("select 1 from pg_namespace where nspname = 'owntx_ddl'")).toEqual([]);
  });
});
