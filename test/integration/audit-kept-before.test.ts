// An update's audit event names the kept version that holds its `before` instead of sealing it a second time
// (issue #33: each byte written once). While the version is kept, AuditGetEvent shows the event whole, as if `before`
// were in it; once STRONGROOM_MAX_VERSIONS prunes it, what changed still shows, both ways; a kept version that is not
// the document the event named (a database writer's swap) shows as altered, never as the event's `before`. Checked
// against a model of the updates (generated), and the sealed details' size against a bound.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { applyMergePatch } from '../../api/vault/merge-patch.js';

const KEEP = 2;
const it = vaultTest({ env: { STRONGROOM_MAX_VERSIONS: String(KEEP) } });

const field = fc.constantFrom('visits', 'city', 'note', 'tags');
const value = fc.oneof(fc.nat(1000), fc.string({ maxLength: 8 }), fc.array(fc.nat(9), { maxLength: 3 }));
const step = fc.record({ patch: fc.boolean(), field, value, drop: fc.boolean() });

/** The change events of a person, oldest first, opened. */
async function changeEvents(vault: TestVault, token: string): Promise<Record<string, any>[]> {
  const list = await vault.call('AuditListUserEvents', { mode: 'token', identity: token, limit: 100 });
  expect(list.status).toBe(200);
  const rows = (list.body.rows as { auditeventuuid: string; title: string }[]).filter((r) => r.title === 'UserUpdate' || r.title === 'UserPatch').reverse();
  const out = [];
  for (const r of rows) {
    const got = await vault.call('AuditGetEvent', { auditeventuuid: r.auditeventuuid });
    expect(got.status).toBe(200);
    out.push(got.body.details as Record<string, any>);
  }
  return out;
}

describe("an update's event and the kept version", () => {
  it('is shown whole while the version is kept, and what changed once it is pruned (generated)', async ({ vault }) => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const first = buildProfile();
        const created = await vault.call('UserCreate', { profile: first });
        expect(created.status).toBe(200);
        const token = created.body.token as string;
        const model: Record<string, unknown>[] = [first];
        for (const s of steps) {
          const was = model.at(-1)!;
          const remove = s.drop && Object.hasOwn(was, s.field);
          const res = s.patch
            ? await vault.call('UserPatch', { mode: 'token', identity: token, patch: [remove ? { op: 'remove', path: `/${s.field}` } : { op: 'add', path: `/${s.field}`, value: s.value }] })
            : await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { [s.field]: remove ? null : s.value } });
          expect(res.status).toBe(200);
          const next = { ...was };
          if (remove) delete next[s.field];
          else next[s.field] = s.value;
          model.push(next);
        }
        const events = await changeEvents(vault, token);
        expect(events.length).toBe(steps.length);
        const current = model.length;
        events.forEach((d, i) => {
          const version = i + 1;
          const [before, after] = [model[version - 1], model[version]];
          expect(d.beforeversion, `event ${version}`).toBe(version);
          if (version > current - 1 - KEEP) {
            expect(d, `event ${version}`).toMatchObject({ before, after });
            expect(Object.keys(d)).not.toContain('beforestate');
          } else {
            expect(d.beforestate, `event ${version}`).toBe('pruned');
            expect(Object.keys(d)).not.toContain('before');
            expect(applyMergePatch(structuredClone(before), d.afterchange)).toEqual(after);
            expect(applyMergePatch(structuredClone(after), d.beforechange)).toEqual(before);
          }
        });
      }),
      { numRuns: 6 },
    );
  });

  it('seals only what changed: the details of a one-field update of a large profile stay small', async ({ vault }) => {
    const profile = { ...buildProfile(), ...Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`f${i}`, `value ${i} `.repeat(4)])) };
    const created = await vault.call('UserCreate', { profile });
    const token = created.body.token as string;
    expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits: 7 } })).status).toBe(200);
    const rows = await vault.api.services.db.global().sql.query(
      `select length(details) as n from tenant_1.audit_events where record = $1 and title = 'UserUpdate'`, [token]);
    const profileBytes = JSON.stringify(profile).length;
    expect(profileBytes).toBeGreaterThan(5_000);
    // The bound: the change, the version's name and digest, the address; never a copy of the profile.
    expect(Number(rows[0]!.n)).toBeLessThan(1_000);
    const [event] = await changeEvents(vault, token);
    expect(event).toMatchObject({ before: profile, after: { ...profile, visits: 7 } });
  });

  it('shows a kept version swapped by a database writer as altered, never as the before', async ({ vault }) => {
    const created = await vault.call('UserCreate', { profile: buildProfile() });
    const token = created.body.token as string;
    for (const visits of [1, 2]) expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits } })).status).toBe(200);
    const sql = vault.api.services.db.global().sql;
    // Version 2's bytes put where version 1 was: sealed for another version, they do not open as it.
    await sql.query(`update tenant_1.user_versions set profile = (select profile from tenant_1.user_versions where token = $1 and version = 2) where token = $1 and version = 1`, [token]);
    const [first, second] = await changeEvents(vault, token);
    expect(first!.beforestate).toBe('altered');
    expect(Object.keys(first!)).not.toContain('before');
    expect(first!.afterchange).toEqual({ visits: 1 });
    expect(second).toMatchObject({ after: { visits: 2 } });
    expect(Object.keys(second!)).not.toContain('beforestate');
  });

  // The strangers' attacks of 29 November: a failed update (409) named the live version as its kept `before`, shown
  // as pruned, then as kept once a later update kept it; held whole instead, a failed update of a 1 MB profile left
  // 1 MB in the trail, as often as the caller liked. A failed change names the version the profile stayed at (live,
  // then kept) and keeps only what it tried.
  it("names the version a failed change left, shown whole while live or kept, and keeps only what it tried", async ({ vault }) => {
    const taken = buildProfile();
    expect((await vault.call('UserCreate', { profile: taken })).status).toBe(200);
    const profile = buildProfile();
    const token = (await vault.call('UserCreate', { profile })).body.token as string;
    const tried = { email: taken.email, note: 'never stored' };
    expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: tried })).status).toBe(409);
    const failedEvent = async () => {
      const list = await vault.call('AuditListUserEvents', { mode: 'token', identity: token, limit: 100 });
      const failed = (list.body.rows as { auditeventuuid: string; title: string; status: string }[]).find((r) => r.title === 'UserUpdate' && r.status === 'error')!;
      return (await vault.call('AuditGetEvent', { auditeventuuid: failed.auditeventuuid })).body.details as Record<string, unknown>;
    };
    // The profile is still at version 1, live: shown whole, and what it tried.
    expect(await failedEvent()).toMatchObject({ beforeversion: 1, before: profile, after: { ...profile, ...tried } });
    // A later change keeps version 1: still shown whole.
    expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits: 1 } })).status).toBe(200);
    expect(await failedEvent()).toMatchObject({ beforeversion: 1, before: profile, after: { ...profile, ...tried } });
    // Pruned: what it tried, and nothing of the profile.
    for (const visits of [2, 3, 4]) expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits } })).status).toBe(200);
    const pruned = await failedEvent();
    expect(pruned).toMatchObject({ beforestate: 'pruned', afterchange: tried });
    expect(Object.keys(pruned)).not.toContain('before');
    expect(Object.keys(pruned)).not.toContain('beforechange');
  });

  it("keeps a failed change's event as small as what it sent, whatever the profile (generated)", async ({ vault }) => {
    const taken = buildProfile();
    expect((await vault.call('UserCreate', { profile: taken })).status).toBe(200);
    const sql = vault.api.services.db.global().sql;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 200 }), fc.dictionary(field, value, { maxKeys: 3 }), fc.boolean(), async (kb, extra, drop) => {
        const profile = { ...buildProfile(), big: 'x'.repeat(kb * 1024) };
        const token = (await vault.call('UserCreate', { profile })).body.token as string;
        // A small request that touches the big field (removing it) and fails on the taken email.
        const tried = { ...extra, email: taken.email, ...(drop ? { big: null } : {}) };
        expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: tried })).status).toBe(409);
        const [row] = await sql.query<{ n: number }>(`select length(details) as n from tenant_1.audit_events where record = $1 and title = 'UserUpdate' and status = 'error'`, [token]);
        // The bound: what it sent, the version's name and digest, the address and the sealing; never the profile.
        expect(Number(row!.n)).toBeLessThan(JSON.stringify(tried).length + 1_000);
      }),
      { numRuns: 15 },
    );
  });

  it('shows a kept version deleted while an older one is kept as altered, not pruned', async ({ vault }) => {
    const created = await vault.call('UserCreate', { profile: buildProfile() });
    const token = created.body.token as string;
    for (const visits of [1, 2]) expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits } })).status).toBe(200);
    await vault.api.services.db.global().sql.query(`delete from tenant_1.user_versions where token = $1 and version = 2`, [token]);
    const [first, second] = await changeEvents(vault, token);
    expect(first).toMatchObject({ beforeversion: 1, after: { visits: 1 } });
    expect(second).toMatchObject({ beforeversion: 2, beforestate: 'altered', afterchange: { visits: 2 } });
    // With the older one gone too, what is left is what pruning leaves: nothing tells the two apart.
    await vault.api.services.db.global().sql.query(`delete from tenant_1.user_versions where token = $1 and version = 1`, [token]);
    const [, again] = await changeEvents(vault, token);
    expect(again!.beforestate).toBe('pruned');
  });

  it('shows the events of an erased person as erased', async ({ vault }) => {
    const created = await vault.call('UserCreate', { profile: buildProfile() });
    const token = created.body.token as string;
    expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits: 1 } })).status).toBe(200);
    const [uuid] = (await vault.call('AuditListUserEvents', { mode: 'token', identity: token })).body.rows.map((r: { auditeventuuid: string }) => r.auditeventuuid);
    expect((await vault.call('UserDelete', { mode: 'token', identity: token })).status).toBe(200);
    expect((await vault.call('AuditGetEvent', { auditeventuuid: uuid })).body.details).toEqual({ erased: true });
  });
});
