// An outside tester's findings on roles (F4–F6): every answer that carries profile values shows at most what the
// caller's UserGet shows; a role that asks about the person gets the same 403 for nobody as for someone refused; a
// patch's errors say nothing about what the caller's UserGet hides. Oracles: non-interference between people the
// caller's UserGet shows alike, and the tester's own calls.
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { it, type TestVault } from '../fixtures/vault.js';
import { roleWith } from '../fixtures/roles.js';

const READS = ['UserGet', 'UserPatch', 'UserPatchRequest', 'BulkList*', 'UserSearch', 'AuditListUserEvents', 'AuditGetEvent', 'SystemGetUserReport', 'SystemGetUserHTMLReport'];

async function created(vault: TestVault, profile: Record<string, unknown>) {
  const res = await vault.call('UserCreate', { profile });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { mode: 'token', identity: res.body.token as string };
}

/** Every answer the role's reads give about one person, with the person's token and the call's own ids left out. */
async function everyRead(vault: TestVault, role: Record<string, string>, ref: { mode: string; identity: string }, login: string) {
  const unlockuuid = (await vault.call('BulkListUnlock', {}, role)).body.unlockuuid as string;
  const events = (await vault.call('AuditListUserEvents', { ...ref, limit: 100 })).body.rows as { auditeventuuid: string; eventtype: string }[];
  const calls: [string, Record<string, unknown>][] = [
    ['UserGet', ref],
    ['BulkListUsers', { unlockuuid, users: [{ mode: 'login', identity: login }] }],
    ['UserSearch', { unlockuuid, mode: 'login', identity: login }],
    ['SystemGetUserReport', ref],
    ['SystemGetUserHTMLReport', ref],
    ...events.filter((e) => e.eventtype !== 'AuditListUserEvents').map((e): [string, Record<string, unknown>] => ['AuditGetEvent', { auditeventuuid: e.auditeventuuid }]),
  ];
  const answers: unknown[] = [];
  for (const [op, body] of calls) {
    const res = await vault.call(op, body, role);
    answers.push([op, res.status, res.status === 200 ? (op === 'UserGet' || op === 'BulkListUsers' || op === 'UserSearch' ? res.body : 'answered') : res.body.message]);
  }
  const all = (await vault.call('BulkListAllUsers', { unlockuuid, offset: 0, limit: 1000 }, role)).body.rows as { token: string }[] | undefined;
  answers.push(['BulkListAllUsers', all?.find((r) => r.token === ref.identity) ?? null]);
  return { text: await texts(vault, role, calls), answers: JSON.parse(JSON.stringify(answers).replaceAll(ref.identity, 'TOKEN')) as unknown };
}

/** The raw text of every answer (a hidden value must appear in none of them). */
async function texts(vault: TestVault, role: Record<string, string>, calls: [string, Record<string, unknown>][]) {
  const out: string[] = [];
  for (const [op, body] of calls) out.push(JSON.stringify((await vault.call(op, body, role)).body));
  return out.join('\n');
}

describe('F4: a field hidden from UserGet is hidden from every answer made for the caller', () => {
  it('the tester’s role: lists and search mask as UserGet does; the report and the audit details are refused', async ({ vault }) => {
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: READS },
      { Effect: 'Deny', Action: 'UserGet', Resource: ['users.profile.secret', 'users.profile.hid', 'users.profile.arr'] },
    ]);
    const login = `alice-${Date.now() % 100000}`;
    const ref = await created(vault, { login, secret: 'A-SECRET', hid: { n: 42 }, arr: [1, 2, 3], address: { country: 'FI' } });
    await vault.call('UserUpdate', { ...ref, profile: { secret: 'B-SECRET', hid: { n: 43 } } });
    const { text } = await everyRead(vault, role, ref, login);
    expect(text).not.toMatch(/-SECRET|"n":4|\[1,2,3\]/);
    const shown = { login, secret: '***', address: { country: 'FI' } };
    expect((await vault.call('UserGet', ref, role)).body.profile).toEqual(shown);
    const unlockuuid = (await vault.call('BulkListUnlock', {}, role)).body.unlockuuid as string;
    const listed = await vault.call('BulkListUsers', { unlockuuid, users: [{ mode: 'login', identity: login }] }, role);
    expect(listed.body.rows?.[0]?.profile, JSON.stringify(listed.body)).toEqual(shown);
    expect((await vault.call('UserSearch', { unlockuuid, mode: 'login', identity: login }, role)).body.rows[0].profile).toEqual(shown);
    const report = await vault.call('SystemGetUserReport', ref, role);
    expect([report.status, report.body.message]).toEqual([403, 'API access denied']);
    const events = (await vault.call('AuditListUserEvents', { ...ref, limit: 100 })).body.rows as { auditeventuuid: string; eventtype: string }[];
    for (const type of ['UserCreate', 'UserUpdate']) {
      const event = await vault.call('AuditGetEvent', { auditeventuuid: events.find((e) => e.eventtype === type)!.auditeventuuid }, role);
      expect([type, event.status, event.body.message]).toEqual([type, 403, 'API access denied']);
    }
  });

  it('people the role’s UserGet shows alike get the same answers from every read (generated policies)', async ({ vault }) => {
    const FIELDS = ['name', 'secret', 'address', 'address.city', 'tags'];
    const policyArb = fc.record({
      allow: fc.oneof(fc.constant('*' as const), fc.uniqueArray(fc.constantFrom(...FIELDS, 'login'), { minLength: 1, maxLength: 3 })),
      denies: fc.uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: 2 }),
      lists: fc.constantFrom('*', 'users.profile.name'),
    });
    const at = (p: string, root: string) => p === root || p.startsWith(`${root}.`);
    let listed = 0;
    await fc.assert(
      fc.asyncProperty(policyArb, async (policy) => {
        const resource = (f: string) => `users.profile.${f}`;
        const role = await roleWith(vault, [
          { Effect: 'Allow', Action: READS, Resource: policy.allow === '*' ? '*' : [...policy.allow.map(resource), 'users.audit', 'users.appdata', 'users.agreement', 'users.group', 'users.session', 'users.file', 'users.request'] },
          { Effect: 'Allow', Action: 'BulkListUnlock' },
          { Effect: 'Deny', Action: 'UserGet', Resource: policy.denies.map(resource) },
          ...(policy.lists === '*' ? [] : [{ Effect: 'Deny', Action: ['BulkListUsers', 'UserSearch', 'BulkListAllUsers'], Resource: 'users.profile.address' }]),
        ]);
        const readable = (leaf: string) => (policy.allow === '*' || policy.allow.some((a) => at(leaf, a))) && !policy.denies.some((d) => at(leaf, d));
        const seed = Math.random().toString(36).slice(2, 8);
        const twin = (who: string) => {
          const v = (leaf: string) => (readable(leaf) ? `same-${leaf}-${seed}` : `HIDDEN${who}-${leaf}`);
          return { login: `${who}-${seed}`, name: v('name'), secret: v('secret'), address: { city: v('address.city'), zip: v('address.zip') }, tags: [v('tags')] };
        };
        const one = await created(vault, twin('A'));
        const two = await created(vault, twin('B'));
        // A second version, so the audit trail holds a before and an after of each.
        for (const [ref, who] of [[one, 'A'], [two, 'B']] as const) {
          const v = (leaf: string) => (readable(leaf) ? `same2-${leaf}-${seed}` : `HIDDEN${who}2-${leaf}`);
          await vault.call('UserUpdate', { ...ref, profile: { secret: v('secret'), name: v('name') } });
        }
        const a = await everyRead(vault, role, one, `A-${seed}`);
        const b = await everyRead(vault, role, two, `B-${seed}`);
        // Nothing the role's UserGet hides shows anywhere, and the twins' answers differ only by their login.
        expect(a.text + b.text).not.toMatch(/HIDDEN/);
        expect(JSON.stringify(a.answers).replaceAll(`A-${seed}`, 'LOGIN')).toEqual(JSON.stringify(b.answers).replaceAll(`B-${seed}`, 'LOGIN'));
        if (JSON.stringify(a.answers).includes('"BulkListUsers",200')) listed++;
      }),
      { numRuns: 12 },
    );
    // The lists answered (masked) in enough of the runs for the property to mean something.
    expect(listed).toBeGreaterThan(2);
  });
});

describe('F5: a role that asks about the person', () => {
  it('answers nobody as it answers someone refused: 403 API access denied, on every per-person operation', async ({ vault }) => {
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: ['UserGet', 'UserUpdate', 'UserPatch', 'UserDelete', 'AppdataGet', 'AppdataCreate', 'SystemGetUserReport', 'UserListVersions', 'AgreementListUserAgreements'] },
      { Effect: 'Deny', Action: '*', Condition: { StringEquals: { '${user:address.country}': 'FI' } } },
    ]);
    const finn = await created(vault, { login: `finn-${Date.now() % 100000}`, address: { country: 'FI' } });
    const swede = await created(vault, { login: `sven-${Date.now() % 100000}`, address: { country: 'SE' } });
    const ghost = { mode: 'login', identity: `ghost-${Date.now() % 100000}` };
    const bodies: [string, Record<string, unknown>][] = [
      ['UserGet', {}],
      ['UserUpdate', { profile: { x: 1 } }],
      ['UserPatch', { patch: [{ op: 'add', path: '/x', value: 1 }] }],
      ['AppdataGet', { appname: 'prefs' }],
      ['AppdataCreate', { appname: 'prefs', appdata: { a: 1 } }],
      ['SystemGetUserReport', {}],
      ['UserListVersions', {}],
      ['AgreementListUserAgreements', {}],
      ['UserDelete', {}],
    ];
    for (const [op, body] of bodies) {
      const refused = await vault.call(op, { ...finn, ...body }, role);
      const nobody = await vault.call(op, { ...ghost, ...body }, role);
      expect([op, nobody.status, nobody.body]).toEqual([op, refused.status, refused.body]);
      expect([op, refused.status, refused.body.message]).toEqual([op, 403, 'API access denied']);
    }
    expect((await vault.call('UserGet', swede, role)).status).toBe(200);
  });

  it('may not move an allowed person’s indexes: a taken value would tell it someone has it (found on a re-test)', async ({ vault }) => {
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: ['UserGet', 'UserUpdate', 'UserPatch'] },
      { Effect: 'Deny', Action: '*', Condition: { StringEquals: { '${user:address.country}': 'FI' } } },
    ]);
    const n = Date.now() % 100000;
    await created(vault, { login: `ada-${n}`, email: `ada-${n}@example.com`, address: { country: 'FI' } });
    const bob = await created(vault, { login: `bob-${n}`, email: `bob-${n}@example.com`, address: { country: 'UK' } });
    // A taken value and a free one answer alike: refused, so neither tells who exists.
    for (const value of [`ada-${n}@example.com`, `free-${n}@example.com`]) {
      const update = await vault.call('UserUpdate', { ...bob, profile: { email: value } }, role);
      expect([value, update.status, update.body.message]).toEqual([value, 403, 'API access denied']);
    }
    for (const value of [`ada-${n}`, `nobody-${n}`]) {
      const patch = await vault.call('UserPatch', { ...bob, patch: [{ op: 'replace', path: '/login', value }] }, role);
      expect([value, patch.status, patch.body.message]).toEqual([value, 403, 'API access denied']);
    }
    // Other fields it may change; so may an admin move the indexes.
    expect((await vault.call('UserPatch', { ...bob, patch: [{ op: 'add', path: '/nickname', value: 'B' }] }, role)).status).toBe(200);
    expect((await vault.call('UserUpdate', { ...bob, profile: { email: `bob2-${n}@example.com` } })).status).toBe(200);
  });
});

describe('F6: a patch’s errors say nothing about what the caller’s UserGet hides', () => {
  it('the tester’s probes are refused alike, before anything is applied or tested', async ({ vault }) => {
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: ['UserGet', 'UserPatch', 'UserPatchRequest'] },
      { Effect: 'Deny', Action: 'UserGet', Resource: ['users.profile.secret', 'users.profile.hid', 'users.profile.arr'] },
    ]);
    const login = `alice-${Date.now() % 100000}`;
    const ref = await created(vault, { login, secret: 'A-SECRET', hid: { n: 42 }, arr: [1, 2, 3] });
    const failing = { op: 'test', path: '/login', value: 'x' };
    for (const probe of [
      { op: 'replace', path: '/hid/n', value: 0 },
      { op: 'replace', path: '/hid/q', value: 0 },
      { op: 'replace', path: '/arr/2', value: 0 },
      { op: 'replace', path: '/arr/3', value: 0 },
      { op: 'add', path: '/secret/x', value: 0 },
      { op: 'add', path: '/arr/-', value: 0 },
      { op: 'remove', path: '/hid' },
    ]) {
      for (const op of ['UserPatch', 'UserPatchRequest']) {
        for (const patch of [[probe, failing], [probe]]) {
          const res = await vault.call(op, { ...ref, patch }, role);
          expect([op, probe, res.status, res.body.message]).toEqual([op, probe, 403, 'API access denied']);
        }
      }
    }
    // Unchanged, and a write of visible fields (or over a hidden one, whole) still works.
    expect((await vault.call('UserGet', ref)).body.profile).toEqual({ login, secret: 'A-SECRET', hid: { n: 42 }, arr: [1, 2, 3] });
    expect((await vault.call('UserPatch', { ...ref, patch: [{ op: 'add', path: '/secret', value: 'S2' }, { op: 'add', path: '/note', value: 'n' }] }, role)).status).toBe(200);
    expect((await vault.call('UserGet', ref)).body.profile).toEqual({ login, secret: 'S2', hid: { n: 42 }, arr: [1, 2, 3], note: 'n' });
  });
});
