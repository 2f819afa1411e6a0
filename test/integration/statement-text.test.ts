// The statement-text helpers (store/statement-text.ts) against the driver's parameter path: a statement with its
// parameters written out as literals answers what the same statement answers with them sent as parameters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';
import { cases } from '../fixtures/sql-values.js';
import { Database } from '../../api/store/database.js';
import { INLINE_LIMIT, literal, literals, writtenOut } from '../../api/store/statement-text.js';

let testDb: TestDatabase;
let db: Database;
let dataDir: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'sr-stmt-'));
  db = await Database.open({ dataDir, databaseUrl: testDb.url, poolMax: 2, log: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('parameters written into a statement', () => {
  for (const [sql, params] of cases) {
    it(`answer as the same parameters sent apart: ${sql}`, async () => {
      const { sql: handle } = db.global();
      await fc.assert(
        fc.asyncProperty(params, async (values) => {
          const oracle = await handle.query(sql, values);
          const text = writtenOut(sql, values.map(literal));
          expect(await handle.query(text)).toEqual(oracle);
        }),
        { numRuns: 80 },
      );
    });
  }

  it('are not written out when too large or holding a NUL', () => {
    expect(literals(['x'.repeat(INLINE_LIMIT + 1)])).toBeUndefined();
    expect(literals(['a\0b'])).toBeUndefined();
    expect(literals(['a', Buffer.from([0])])).toEqual(["'a'", "E'\\\\x00'"]);
  });

  it('leave a placeholder with no value as it is, and $10 apart from $1', () => {
    expect(writtenOut('select $1, $10, $2', ["'a'", "'b'"])).toBe("select 'a', $10, 'b'");
  });
});
