// An app record's change leaves an audit event that says what it was and what it became, as a profile change's does
// (sealed under the person's key): AppdataCreate the record stored, AppdataUpdate the record before and after its
// merge. Checked against a model of the calls (generated: fields set, changed and deleted with null).
import fc from 'fast-check';
import { expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const it = vaultTest();

const field = fc.constantFrom('visits', 'cart', 'newsletter', 'note');
const value = fc.oneof(fc.nat(1000), fc.string({ maxLength: 8 }), fc.boolean(), fc.array(fc.nat(9), { maxLength: 3 }));
const step = fc.oneof(
  fc.record({ op: fc.constant('AppdataCreate' as const), record: fc.dictionary(field, value, { maxKeys: 3 }) }),
  fc.record({ op: fc.constant('AppdataUpdate' as const), field, value, drop: fc.boolean() }),
);

/** The app data change events of a person, oldest first, opened. */
async function appEvents(vault: TestVault, token: string): Promise<{ title: string; details: Record<string, any> }[]> {
  const list = await vault.call('AuditListUserEvents', { mode: 'token', identity: token, limit: 100 });
  expect(list.status).toBe(200);
  const rows = (list.body.rows as { auditeventuuid: string; title: string }[]).filter((r) => r.title.startsWith('Appdata')).reverse();
  const out = [];
  for (const r of rows) {
    const got = await vault.call('AuditGetEvent', { auditeventuuid: r.auditeventuuid });
    expect(got.status).toBe(200);
    out.push({ title: r.title, details: got.body.details as Record<string, any> });
  }
  return out;
}

it("shows each app record change's before and after (generated)", async ({ vault }) => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
      const created = await vault.call('UserCreate', { profile: buildProfile() });
      const ref = { mode: 'token', identity: created.body.token as string, appname: 'shop' };
      let record: Record<string, unknown> | undefined;
      const expected: { title: string; before?: unknown; after: unknown }[] = [];
      for (const s of steps) {
        if (s.op === 'AppdataCreate') {
          expect((await vault.call('AppdataCreate', { ...ref, appdata: s.record })).status).toBe(200);
          record = { ...s.record };
          expected.push({ title: s.op, after: record });
          continue;
        }
        const res = await vault.call('AppdataUpdate', { ...ref, appdata: { [s.field]: s.drop ? null : s.value } });
        // No record yet: 404, and its failed event is not a change.
        if (!record) {
          expect(res.status).toBe(404);
          continue;
        }
        expect(res.status).toBe(200);
        const next = { ...record };
        if (s.drop) delete next[s.field];
        else next[s.field] = s.value;
        expected.push({ title: s.op, before: record, after: next });
        record = next;
      }
      const shown = (await appEvents(vault, ref.identity)).filter((e) => e.title === 'AppdataCreate' || e.details.after !== undefined);
      expect(shown.map((e) => e.title)).toEqual(expected.map((e) => e.title));
      shown.forEach((e, i) => {
        expect(e.details.after, `${e.title} ${i}`).toEqual(expected[i]!.after);
        if (e.title === 'AppdataUpdate') expect(e.details.before, `${e.title} ${i}`).toEqual(expected[i]!.before);
      });
      expect((await vault.call('AppdataGet', ref)).body.appdata ?? {}).toEqual(record ?? {});
    }),
    { numRuns: 12 },
  );
});
