// Statements sent `later` in a write transaction of our own: they travel with the transaction's next statement
// (or its COMMIT) instead of a round trip of their own. The oracle is a model of the transaction: what it leaves
// committed, what each statement sees, and which error ends it, whatever the order of its statements.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';
import { Database, MAIN_TENANT_ID } from '../../api/store/database.js';
import { INLINE_LIMIT } from '../../api/store/statement-text.js';

let testDb: TestDatabase;
let db: Database;
let dataDir: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'sr-later-'));
  db = await Database.open({ dataDir, databaseUrl: testDb.url, poolMax: 2, log: pino({ level: 'silent' }) });
  await db.global().sql.query('create table if not exists public.later (run int not null, v text not null unique, big text)');
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

class Told extends Error {}
const INSERT = 'insert into public.later (run, v, big) values ($1, $2, $3)';
const told = (err: unknown) => ((err as { code?: unknown }).code === '23505' ? new Told('taken') : err);

/**
 * One step of a transaction: an insert sent later (large: too large to write out, so sent at once; taken: a unique
 * violation), an insert now, or a count of the run's rows.
 */
const step = fc.oneof(
  fc.record({ kind: fc.constant('later' as const) }),
  fc.record({ kind: fc.constant('large' as const) }),
  fc.record({ kind: fc.constant('taken' as const) }),
  fc.record({ kind: fc.constant('now' as const) }),
  fc.record({ kind: fc.constant('count' as const) }),
);
const ending = fc.constantFrom('last statement' as const, 'commit' as const, 'throw' as const);

let runs = 0;

describe('a statement sent later', () => {
  it('commits, is seen and fails as if it had been sent at once (generated transactions)', async () => {
    await db.write(MAIN_TENANT_ID, false, (tx) => tx.sql.queryThenCommit(INSERT, [0, 'taken', null]));
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 8 }), ending, async (steps, end) => {
        const run = ++runs;
        // The model: a taken value sent later fails the first statement sent after it (a count, an insert now, one
        // too large to wait) or the commit; work that throws first rolls back before it is ever sent.
        let pending = false;
        let model: 'committed' | 'taken' | 'thrown' | undefined;
        for (const s of steps) {
          if (s.kind === 'taken') pending = true;
          else if (s.kind !== 'later' && pending) model ??= 'taken';
        }
        model ??= end === 'throw' ? 'thrown' : pending ? 'taken' : 'committed';
        const inserted: string[] = [];
        const seen: number[] = [];
        const outcome = await db
          .write(MAIN_TENANT_ID, false, async (tx) => {
            for (const [i, s] of steps.entries()) {
              if (s.kind === 'count') {
                seen.push(Number((await tx.sql.query<{ n: string }>('select count(*) as n from public.later where run = $1', [run]))[0]!.n));
                continue;
              }
              const v = s.kind === 'taken' ? 'taken' : `${run}:${i}`;
              const params = [run, v, s.kind === 'large' ? 'x'.repeat(INLINE_LIMIT) : null];
              if (s.kind === 'now') await tx.sql.query(INSERT, params);
              else await tx.sql.later(INSERT, params, told);
              inserted.push(v);
            }
            if (end === 'throw') throw new Error('the work failed');
            if (end === 'last statement') await tx.sql.queryThenCommit('select 1');
          })
          .then(
            () => 'committed',
            (err: unknown) => (err instanceof Told ? 'taken' : (err as Error).message === 'the work failed' ? 'thrown' : String(err)),
          );
        expect(outcome).toBe(model);
        const kept = (await db.global().sql.query<{ v: string }>('select v from public.later where run = $1', [run])).map((r) => r.v);
        if (outcome !== 'committed') {
          expect(kept).toEqual([]);
          return;
        }
        expect(kept.sort()).toEqual(inserted.sort());
        // Each count saw every insert before it, sent later or not.
        const counts = steps.flatMap((s, i) => (s.kind === 'count' ? [steps.slice(0, i).filter((t) => t.kind !== 'count').length] : []));
        expect(seen).toEqual(counts);
      }),
      { numRuns: 150 },
    );
  });

  it('forgets the plan of a statement never sent: the next transaction prepares it again', async () => {
    const sql = `insert into public.later (run, v) values ($1, $2 || '-plan')`;
    await expect(
      db.write(MAIN_TENANT_ID, false, async (tx) => {
        await tx.sql.query('select 1');
        await tx.sql.later(sql, [-1, 'never']);
        throw new Error('gone before it was sent');
      }),
    ).rejects.toThrow(/gone before/);
    // The pool has two connections: both get the statement, so the one that dropped it is among them.
    for (let i = 0; i < 4; i++) await db.write(MAIN_TENANT_ID, false, async (tx) => (await tx.sql.later(sql, [-1, `again-${i}`]), tx.sql.queryThenCommit('select 1')));
    expect((await db.global().sql.query<{ n: string }>("select count(*) as n from public.later where v like 'again-%-plan'"))[0]!.n).toBe('4');
  });

  it('outside a transaction of our own, runs at once and tells its failure', async () => {
    await db.global().sql.later(INSERT, [-2, 'pool', null]);
    expect(await db.global().sql.query('select v from public.later where run = -2')).toEqual([{ v: 'pool' }]);
    await expect(db.global().sql.later(INSERT, [-2, 'pool', null], told)).rejects.toBeInstanceOf(Told);
  });
});
