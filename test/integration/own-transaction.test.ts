// Write transactions of our own (Database.writeTransaction): BEGIN and the tenant's role travel with the first
// statement, its parameters written into its text; COMMIT travels with the last. A value written out must be the
// value pg would have sent as a parameter, whatever its bytes: the oracle is the same statement with parameters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';
import { Database, MAIN_TENANT_ID } from '../../api/store/database.js';
import { isInTransaction, onTransactionEnd, query, queryThenCommit } from '../../api/store/sql.js';

let testDb: TestDatabase;
let db: Database;
let dataDir: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'sr-owntx-'));
  db = await Database.open({ dataDir, databaseUrl: testDb.url, poolMax: 4, log: pino({ level: 'silent' }) });
  await query(db.global(), 'create table if not exists public.owntx (id serial primary key, v text)');
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

// Text that pg's quoting must survive: quotes, backslashes, E-string escapes, dollar signs, placeholders, unicode.
const nasty = fc.string({ unit: fc.constantFrom("'", '\\', '"', '$', '$1', 'E', 'x', ';', '--', '/*', '{', '}', ',', 'é', '😀', ' ', '\n', 'a') });
const text = fc.oneof(fc.string(), nasty, fc.string({ unit: 'grapheme' })).filter((s) => !s.includes('\0'));
const bytes = fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a));
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

// Each case: a statement, and parameters for it.
const cases: [string, fc.Arbitrary<unknown[]>][] = [
  ['select $1::text as v', fc.tuple(nullable(text))],
  ['select $1::bytea as v', fc.tuple(nullable(bytes))],
  ['select $1::text[] as v', fc.tuple(fc.array(nullable(text), { maxLength: 5 }))],
  ['select $1::bytea[] as v', fc.tuple(fc.array(nullable(bytes), { maxLength: 5 }))],
  ['select $1::bigint as v, $2::boolean as w', fc.tuple(fc.maxSafeInteger(), fc.boolean())],
  ['select $1::jsonb as v', fc.tuple(fc.jsonValue().map((j) => ({ j })))],
  ['select $1::double precision as v', fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true }))],
  // Untyped: the type comes from the context, for a parameter as for a literal.
  ['select $1 = any($2::text[]) as v, upper($3) as w', fc.tuple(text, fc.array(text, { maxLength: 4 }), text)],
  ['select $10::text || concat($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text) as v', fc.tuple(text, text, text, text, text, text, text, text, text, text)],
];

describe('a write transaction of our own', () => {
  for (const [sql, params] of cases) {
    it(`answers the first and the last statement as pg answers with parameters: ${sql}`, async () => {
      await fc.assert(
        fc.asyncProperty(params, async (values) => {
          const oracle = await query(db.global(), sql, values);
          const first = await db.writeTransaction(MAIN_TENANT_ID, false, (tx) => query(tx, sql, values));
          const last = await db.writeTransaction(MAIN_TENANT_ID, false, async (tx) => (await query(tx, 'select 1'), queryThenCommit(tx, sql, values)));
          expect(first).toEqual(oracle);
          expect(last).toEqual(oracle);
        }),
        { numRuns: 60 },
      );
    });
  }

  it('refuses a NUL in text as pg does (22021), instead of cutting the statement at it', async () => {
    const expected = await query(db.global(), 'select $1::text', ['a\0b']).then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    );
    expect(expected).toBe(process.env.DATABASE_URL ? '22021' : expected);
    const got = await db.writeTransaction(MAIN_TENANT_ID, false, (tx) => query(tx, 'select $1::text', ['a\0b'])).then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    );
    expect(got).toBe(expected);
  });

  it('sends parameters too large to write out as parameters, BEGIN and COMMIT alone', async () => {
    const big = 'x'.repeat(600_000);
    const [row] = await db.writeTransaction(MAIN_TENANT_ID, false, (tx) => queryThenCommit<{ n: number }>(tx, 'select length($1::text) as n', [big]));
    expect(Number(row!.n)).toBe(600_000);
  });

  it('is one transaction: its statements see each other, and a failure anywhere leaves nothing', async () => {
    const count = async (v: string) => Number((await query<{ n: string }>(db.global(), 'select count(*) as n from public.owntx where v = $1', [v]))[0]!.n);
    await db.writeTransaction(MAIN_TENANT_ID, false, async (tx) => {
      await query(tx, 'insert into public.owntx (v) values ($1)', ['kept']);
      expect(Number((await query<{ n: string }>(tx, 'select count(*) as n from public.owntx where v = $1', ['kept']))[0]!.n)).toBe(1);
      await queryThenCommit(tx, 'insert into public.owntx (v) values ($1)', ['kept']);
    });
    expect(await count('kept')).toBe(2);
    for (const failAt of ['first', 'middle', 'last', 'after'] as const) {
      const v = `lost-${failAt}`;
      const run = db.writeTransaction(MAIN_TENANT_ID, false, async (tx) => {
        await query(tx, failAt === 'first' ? 'insert into public.owntx (v) values ($1::int)' : 'insert into public.owntx (v) values ($1)', [v]);
        await query(tx, failAt === 'middle' ? 'select 1/0' : 'insert into public.owntx (v) values ($1)', [failAt === 'middle' ? undefined : v].filter((x) => x !== undefined));
        if (failAt === 'after') throw new Error('the work failed');
        await queryThenCommit(tx, failAt === 'last' ? 'insert into public.owntx (id, v) values (1, $1)' : 'insert into public.owntx (v) values ($1)', [v]);
      });
      await expect(run).rejects.toBeDefined();
      expect(await count(v)).toBe(0);
    }
  });

  it('refuses a statement after the one that committed, and tells commit and rollback apart once', async () => {
    const seen: string[] = [];
    await expect(
      db.writeTransaction(MAIN_TENANT_ID, false, async (tx) => {
        expect(isInTransaction(tx)).toBe(true);
        onTransactionEnd(tx, 'commit', () => seen.push('commit'));
        onTransactionEnd(tx, 'rollback', () => seen.push('rollback'));
        await queryThenCommit(tx, 'insert into public.owntx (v) values ($1)', ['committed']);
        await query(tx, 'select 1');
      }),
    ).rejects.toThrow(/after the end of the transaction/);
    expect(seen).toEqual(['commit']);
    expect(Number((await query<{ n: string }>(db.global(), "select count(*) as n from public.owntx where v = 'committed'"))[0]!.n)).toBe(1);
    const rolled: string[] = [];
    await expect(
      db.writeTransaction(MAIN_TENANT_ID, false, async (tx) => {
        onTransactionEnd(tx, 'commit', () => rolled.push('commit'));
        onTransactionEnd(tx, 'rollback', () => rolled.push('rollback'));
        await query(tx, 'select 1/0');
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
      const oracle = await query(db.global(), sql, values);
      const got = await db.writeTransaction(MAIN_TENANT_ID, false, async (tx) => [await query(tx, sql, values), await query(tx, sql, values), await queryThenCommit(tx, sql, values)]);
      expect(got).toEqual([oracle, oracle, oracle]);
    }
    const kept = await db.writeTransaction(MAIN_TENANT_ID, false, (tx) => query<{ n: string }>(tx, 'select count(*) as n from pg_prepared_statements'));
    expect(Number(kept[0]!.n)).toBeGreaterThan(0);
    expect(Number(kept[0]!.n)).toBeLessThanOrEqual(200);
  });

  it('keeps the order of statements called at once: the first called carries BEGIN', async () => {
    await db.writeTransaction(MAIN_TENANT_ID, false, async (tx) => {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => query<{ i: number }>(tx, 'select $1::int as i, txid_current() as x', [i])));
      expect(results.map((r) => r[0]!.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(new Set(results.map((r) => String((r[0] as unknown as { x: unknown }).x))).size).toBe(1);
    });
  });
});
