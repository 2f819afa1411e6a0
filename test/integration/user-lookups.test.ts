// The shared lookup of many users in one statement (UserStore.byKeys, what concurrent UserGets and group listings
// share): whatever the number of keys (one parameter each up to 64, one array beyond), with duplicates, unknown keys
// and people who expired or were erased among them, it answers exactly the live people named, each once.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { it, buildProfile } from '../fixtures/vault.js';

describe('looking up many users in one statement', () => {
  it('answers exactly the live people named, by token and by index, for any number of keys', async ({ vault }) => {
    const people: { token: string; emailIdx: Buffer }[] = [];
    for (let i = 0; i < 40; i++) {
      const created = await vault.call('UserCreate', { profile: buildProfile() });
      expect(created.status).toBe(200);
      people.push({ token: created.body.token as string, emailIdx: Buffer.alloc(0) });
    }
    const rows = await vault.api.services.db.global().sql.query<{ token: string; email_idx: Buffer }>(`select token, email_idx from tenant_1.users where token = any($1::uuid[])`, [people.map((p) => p.token)]);
    for (const r of rows) people.find((p) => p.token === r.token)!.emailIdx = r.email_idx;
    // Two who are no longer there: one erased, one expired.
    const erased = people[0]!.token;
    expect((await vault.call('UserDelete', { mode: 'token', identity: erased })).status).toBe(200);
    const expired = people[1]!.token;
    await vault.api.services.db.global().sql.query(`update tenant_1.users set expires_at = 1 where token = $1`, [expired]);
    const live = new Set(people.slice(2).map((p) => p.token));
    const store = vault.api.services.db.stores(1).users;
    const now = Math.floor(Date.now() / 1000);

    const named = fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...people) }, { weight: 1, arbitrary: fc.constant(undefined) }), { minLength: 0, maxLength: 90 });
    await fc.assert(
      fc.asyncProperty(named, fc.boolean(), async (chosen, byEmail) => {
        const keys = chosen.map((p) => (byEmail ? (p?.emailIdx ?? Buffer.alloc(32, 7)) : (p?.token ?? randomUUID())));
        const found = await store.byKeys(byEmail ? 'email' : 'token', keys, now);
        const expected = new Set(chosen.flatMap((p) => (p && live.has(p.token) ? [p.token] : [])));
        expect(found.map((r) => r.token).sort()).toEqual([...expected].sort());
        for (const r of found) expect(r.wrappedKey.length, 'a live person comes with their key').toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });
});
