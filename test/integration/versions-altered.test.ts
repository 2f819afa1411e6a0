// Kept versions altered by a database writer (the stranger's attack of 29 November): a version's bytes swapped for
// another version's or another person's, cut, renumbered or deleted. Whatever was done, the calls that read or keep
// versions answer what they can and say what was altered (409), never a 500, and a change refused for it stores
// nothing. The oracle: the statuses each call may answer, and the profile unchanged by a refused change.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { Messages } from '../../api/errors.js';
import { UNKEYED_DETAILS_MSG } from '../../api/vault/audit/seal.js';

const it = vaultTest({ env: { STRONGROOM_MAX_VERSIONS: '3' } });

/** A person at version 4 (versions 1 to 3 kept). */
async function personAtFour(vault: TestVault): Promise<string> {
  const token = (await vault.call('UserCreate', { profile: buildProfile() })).body.token as string;
  for (const visits of [1, 2, 3]) expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits } })).status).toBe(200);
  return token;
}

const ALTERATIONS = {
  'another version': `update tenant_1.user_versions set profile = (select profile from tenant_1.user_versions where token = $1 and version = 3) where token = $1 and version = 2`,
  "another person's": `update tenant_1.user_versions set profile = (select profile from tenant_1.user_versions where token = $2 and version = 2) where token = $1 and version = 2`,
  cut: `update tenant_1.user_versions set profile = '\\x00' where token = $1 and version = 2`,
  'renumbered far': `update tenant_1.user_versions set version = 99 where token = $1 and version = 2`,
  'renumbered next': `update tenant_1.user_versions set version = 4 where token = $1 and version = 2`,
  deleted: `delete from tenant_1.user_versions where token = $1 and version = 2`,
} as const;

describe('kept versions altered in the database', () => {
  it('answer 200, 404 or 409 naming the alteration, never a 500; a refused change stores nothing (generated)', async ({ vault }) => {
    const other = await personAtFour(vault);
    const sql = vault.api.services.db.global().sql;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...(Object.keys(ALTERATIONS) as (keyof typeof ALTERATIONS)[])), fc.nat(99), async (how, visits) => {
        const token = await personAtFour(vault);
        const ref = { mode: 'token', identity: token };
        const current = (await vault.call('UserGet', ref)).body.profile;
        await sql.query(ALTERATIONS[how], how === "another person's" ? [token, other] : [token]);
        for (const version of [1, 2, 3, 4, 5, 99]) {
          const got = await vault.call('UserGet', { ...ref, version });
          expect([200, 404, 409], `UserGet version ${version} after ${how}: ${JSON.stringify(got.body)}`).toContain(got.status);
          if (got.status === 409) expect(got.body.message).toBe(Messages.recordAltered);
        }
        const listed = await vault.call('UserListVersions', ref);
        expect([200, 409], `UserListVersions after ${how}`).toContain(listed.status);
        const updated = await vault.call('UserUpdate', { ...ref, profile: { visits } });
        expect([200, 409], `UserUpdate after ${how}: ${JSON.stringify(updated.body)}`).toContain(updated.status);
        if (updated.status === 409) {
          expect(updated.body.message).toBe(Messages.versionsAltered);
          expect((await vault.call('UserGet', ref)).body.profile).toEqual(current);
        }
        const events = (await vault.call('AuditListUserEvents', { ...ref, limit: 100 })).body.rows as { auditeventuuid: string }[];
        for (const e of events) expect((await vault.call('AuditGetEvent', { auditeventuuid: e.auditeventuuid })).status).toBe(200);
      }),
      { numRuns: 18 },
    );
  });

  it('answers an event whose person\'s key was swapped 409 recordAltered, never a 500 (a stranger\'s finding)', async ({ vault }) => {
    const [a, b] = [await personAtFour(vault), await personAtFour(vault)];
    const events = (await vault.call('AuditListUserEvents', { mode: 'token', identity: a, limit: 100 })).body.rows as { auditeventuuid: string }[];
    const sql = vault.api.services.db.global().sql;
    const [own] = await sql.query<{ wrapped: Buffer }>(`select wrapped from tenant_1.subject_keys where token = $1`, [a]);
    await sql.query(`update tenant_1.subject_keys set wrapped = (select wrapped from tenant_1.subject_keys where token = $2) where token = $1`, [a, b]);
    try {
      const statuses = new Set<number>();
      for (const e of events) {
        const got = await vault.call('AuditGetEvent', { auditeventuuid: e.auditeventuuid });
        statuses.add(got.status);
        if (got.status === 409) expect(got.body.message).toBe(Messages.recordAltered);
      }
      expect([...statuses].every((s) => s === 200 || s === 409)).toBe(true);
      expect(statuses.has(409)).toBe(true);
      // Reads of the person whose key was swapped, side by side with others' (their events sealed in one batch): the
      // others' are answered as ever; the person's answered or refused as altered, never a 500 or a 503.
      const reads = await Promise.all(
        Array.from({ length: 24 }, (_, i) => vault.call('AuditListUserEvents', { mode: 'token', identity: i % 3 ? b : a, limit: 5 }).then((r) => ({ who: i % 3 ? 'b' : 'a', status: r.status }))),
      );
      for (const r of reads) expect(r.who === 'b' ? [200] : [200, 409], JSON.stringify(r)).toContain(r.status);
      // Each answered read of the person is in the trail, saying why its details are not.
      const answered = reads.filter((r) => r.who === 'a' && r.status === 200).length;
      const [said] = await sql.query<{ n: number }>(`select count(*)::int as n from tenant_1.audit_events where record = $1 and msg = $2`, [a, UNKEYED_DETAILS_MSG]);
      expect(said!.n).toBeGreaterThanOrEqual(answered);
    } finally {
      await sql.query(`update tenant_1.subject_keys set wrapped = $2 where token = $1`, [a, own!.wrapped]);
    }
  });

  it('refuses the change that would keep a version under a renumbered one, and says so', async ({ vault }) => {
    const token = await personAtFour(vault);
    await vault.api.services.db.global().sql.query(ALTERATIONS['renumbered next'], [token]);
    const refused = await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits: 9 } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(Messages.versionsAltered);
    expect((await vault.call('UserGet', { mode: 'token', identity: token, version: 2 })).status).toBe(404);
  });
});
