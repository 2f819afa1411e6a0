// M3: a field a Deny of UserGet hides cannot be read through other operations of the same role either: a patch's
// test (a guess confirmed), copy or move (the value brought into sight), a patch request (the same, at approval) or
// a share (the value shown to whoever holds the link). The oracle is non-interference: two people who differ only
// in what the role may not read get the same answers to every call the role makes, whatever it writes first.
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { it, type TestVault } from '../fixtures/vault.js';

let roles = 0;
/** An xtoken (as headers) for a fresh role holding exactly these statements. */
async function role(vault: TestVault, policy: unknown): Promise<Record<string, string>> {
  const rolename = `reads-${++roles}-${Date.now() % 100000}`;
  for (const [op, body] of [
    ['RoleCreate', { rolename }],
    ['PolicyCreate', { policyname: rolename, policy }],
    ['RoleLinkPolicy', { rolename, policyname: rolename }],
  ] as const) {
    const res = await vault.call(op, body);
    expect(res.status, `${op} ${JSON.stringify(res.body)}`).toBe(200);
  }
  return { 'x-bunker-token': (await vault.call('XTokenCreateForRole', { rolename })).body.xtoken as string };
}

const ACTIONS = ['UserGet', 'UserPatch', 'UserPatchRequest', 'SharedRecordCreate'];
const OTHER_KINDS = ['users.appdata', 'users.request'];

async function personWith(vault: TestVault, profile: Record<string, unknown>) {
  const made = await vault.call('UserCreate', { profile });
  expect(made.status).toBe(200);
  return { mode: 'token', identity: made.body.token as string };
}

describe('M3: reads through patches and shares', () => {
  it('the attacker’s calls: test, copy and move from a denied field, and a share of it, are refused; other patches work', async ({ vault }) => {
    const xtoken = await role(vault, [
      { Effect: 'Allow', Action: ACTIONS, Resource: ['users.profile', ...OTHER_KINDS] },
      { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.secret' },
    ]);
    const ref = await personWith(vault, { name: 'Ada', secret: 'S2' });
    for (const patch of [
      [{ op: 'test', path: '/secret', value: 'S2' }],
      [{ op: 'test', path: '/secret', value: 'S1' }],
      [{ op: 'test', path: '', value: { name: 'Ada', secret: 'S2' } }],
      [{ op: 'copy', from: '/secret', path: '/leak' }],
      [{ op: 'move', from: '/secret', path: '/leak' }],
      [{ op: 'copy', from: '', path: '/leak' }],
    ]) {
      for (const op of ['UserPatch', 'UserPatchRequest']) {
        const res = await vault.call(op, { ...ref, patch }, xtoken);
        expect(res.status, `${op} ${JSON.stringify(patch)}`).toBe(403);
        expect(res.body.message).toBe('API access denied');
      }
    }
    for (const fields of ['secret', 'name,secret', undefined]) {
      expect((await vault.call('SharedRecordCreate', { ...ref, ...(fields ? { fields } : {}) }, xtoken)).status, String(fields)).toBe(403);
    }
    expect((await vault.call('UserPatch', { ...ref, patch: [{ op: 'copy', from: '/name', path: '/alias' }, { op: 'add', path: '/secret', value: 'S3' }] }, xtoken)).status).toBe(200);
    const share = await vault.call('SharedRecordCreate', { ...ref, fields: 'name,alias' }, xtoken);
    expect(share.status).toBe(200);
    expect((await vault.call('SharedRecordGet', { recorduuid: share.body.recorduuid })).body.data).toEqual({ name: 'Ada', alias: 'Ada' });
    expect((await vault.call('UserGet', ref, xtoken)).body.profile).toEqual({ name: 'Ada', alias: 'Ada', secret: '***' });
    expect((await vault.call('UserGet', ref)).body.profile.secret).toBe('S3');
  });

  it('PolicyExplain says what UserPatch, UserPatchRequest and SharedRecordCreate may read: the role’s UserGet view', async ({ vault }) => {
    const rolename = `explain-reads-${Date.now() % 100000}`;
    await vault.call('RoleCreate', { rolename });
    await vault.call('PolicyCreate', {
      policyname: rolename,
      policy: [
        { Effect: 'Allow', Action: ACTIONS, Resource: ['users.profile', ...OTHER_KINDS] },
        { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.secret' },
      ],
    });
    await vault.call('RoleLinkPolicy', { rolename, policyname: rolename });
    for (const operation of ['UserPatch', 'UserPatchRequest', 'SharedRecordCreate']) {
      const explained = await vault.call('PolicyExplain', { rolename, operation });
      expect(explained.body.verdict, operation).toBe('allow');
      expect(explained.body.reads).toEqual({ as: 'UserGet', visible: ['*'], masked: [{ field: 'secret', policy: rolename, statement: 1, effect: 'Deny' }] });
    }
    expect((await vault.call('PolicyExplain', { rolename, operation: 'UserUpdate' })).body.reads).toBeUndefined();
  });

  it('two people who differ only where the role may not read get the same answers to whatever it does', async ({ vault }) => {
    const DENIABLE = ['name', 'secret', 'address', 'address.city', 'tags'];
    const LEAVES = ['name', 'secret', 'address.city', 'address.zip', 'tags'];
    const POINTERS = ['', '/name', '/secret', '/address', '/address/city', '/address/zip', '/tags', '/tags/0', '/tags/1'];
    const at = (p: string, root: string) => p === root || p.startsWith(`${root}.`);
    const policyArb = fc.record({
      allow: fc.oneof(fc.constant('*' as const), fc.uniqueArray(fc.constantFrom(...LEAVES), { minLength: 1, maxLength: 3 })),
      denies: fc.uniqueArray(fc.constantFrom(...DENIABLE), { minLength: 1, maxLength: 2 }),
    });
    const valueArb = fc.constantFrom('A', 'B', 'same', 'x');
    const opArb = fc.oneof(
      fc.record({ op: fc.constant('test'), path: fc.constantFrom(...POINTERS), value: valueArb }),
      fc.record({ op: fc.constantFrom('copy', 'move'), from: fc.constantFrom(...POINTERS), path: fc.constantFrom('/c1', '/c2', '/name', '/address/c3') }),
      fc.record({ op: fc.constantFrom('add', 'replace'), path: fc.constantFrom(...POINTERS.slice(1), '/new'), value: fc.constant('written') }),
      fc.record({ op: fc.constant('remove'), path: fc.constantFrom(...POINTERS.slice(1)) }),
    );
    const sharesArb = fc.option(fc.uniqueArray(fc.constantFrom('name', 'secret', 'address', 'address.city', 'tags', 'c1', 'c2', 'new'), { minLength: 1, maxLength: 3 }), { nil: undefined });

    await fc.assert(
      fc.asyncProperty(policyArb, fc.array(opArb, { minLength: 1, maxLength: 3 }), sharesArb, async (policy, patch, fields) => {
        const allows = policy.allow === '*' ? ['users.profile'] : policy.allow.map((f) => `users.profile.${f}`);
        const xtoken = await role(vault, [
          { Effect: 'Allow', Action: ACTIONS, Resource: [...allows, ...OTHER_KINDS] },
          { Effect: 'Deny', Action: 'UserGet', Resource: policy.denies.map((d) => `users.profile.${d}`) },
        ]);
        // What the role may read: granted, and no Deny at or above it. Elsewhere the twins differ.
        const readable = (leaf: string) => (policy.allow === '*' || policy.allow.some((a) => at(leaf, a))) && !policy.denies.some((d) => at(leaf, d));
        const twin = (who: string) => {
          const v = (leaf: string, i = 0) => (readable(leaf) ? `same-${leaf}-${i}` : `${who}-${leaf}-${i}`);
          return { name: v('name'), secret: v('secret'), address: { city: v('address.city'), zip: v('address.zip') }, tags: [v('tags'), v('tags', 1)] };
        };
        // A guess names one twin's hidden value, so a confirmed guess would tell them apart.
        const guess = (value: string, path: string) => `${value}-${path.slice(1).replace('/', '.').replace(/\.[01]$/, '')}-0`;
        const ops = patch.map((o) => ('value' in o && o.op === 'test' ? { ...o, value: guess(o.value, o.path) } : o));
        const answers = async (profile: Record<string, unknown>) => {
          const ref = await personWith(vault, profile);
          const seen: unknown[] = [];
          const call = async (op: string, body: Record<string, unknown>, headers?: Record<string, string>) => {
            const res = await vault.call(op, body, headers);
            const text = JSON.stringify(res.body).replaceAll(ref.identity, 'TOKEN');
            const { recorduuid: _r, requestuuid: _q, expirationtime: _e, ...rest } = JSON.parse(text) as Record<string, unknown>;
            seen.push([op, res.status, rest]);
            return res;
          };
          await call('UserPatchRequest', { ...ref, patch: ops }, xtoken);
          await call('UserPatch', { ...ref, patch: ops }, xtoken);
          await call('UserGet', ref, xtoken);
          const share = await call('SharedRecordCreate', { ...ref, ...(fields ? { fields } : {}) }, xtoken);
          if (share.status === 200) await call('SharedRecordGet', { recorduuid: share.body.recorduuid });
          return seen;
        };
        const [a, b] = [await answers(twin('A')), await answers(twin('B'))];
        expect(a).toEqual(b);
        // And no hidden value of either twin shows anywhere.
        expect(JSON.stringify(a)).not.toMatch(/"A-/);
      }),
      { numRuns: 25 },
    );
  });
});

// The final stranger's attack: a request's `original` and `change`, and a version's MD5, are profile reads too.
describe('M3: reads through requests and version hashes', () => {
  it('shows a request’s original and change, and hashes versions, as the caller’s UserGet would (non-interference)', async ({ vault }) => {
    const xtoken = await role(vault, [
      { Effect: 'Allow', Action: ['UserGet', 'UserPatchRequest', 'UserUpdateRequest', 'UserRequestGet', 'UserListVersions'], Resource: '*' },
      { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.secret' },
    ]);
    const answers = async (secret: string) => {
      const ref = await personWith(vault, { name: 'Ada', secret });
      const merge = await vault.call('UserUpdateRequest', { ...ref, profile: { secret: `${secret}-new`, city: 'Oulu' } }, xtoken);
      const patch = await vault.call('UserPatchRequest', { ...ref, patch: [{ op: 'add', path: '/secret', value: `${secret}-p` }] }, xtoken);
      expect([merge.status, patch.status]).toEqual([200, 200]);
      const got = [];
      for (const uuid of [merge.body.requestuuid, patch.body.requestuuid]) {
        const { request } = (await vault.call('UserRequestGet', { requestuuid: uuid }, xtoken)).body;
        got.push({ original: request.original, change: request.change });
      }
      const versions = (await vault.call('UserListVersions', ref, xtoken)).body.versions as { md5: string }[];
      return { got, md5: versions.map((v) => v.md5) };
    };
    const one = await answers('S3CRET-1');
    const two = await answers('S3CRET-2');
    expect(JSON.stringify(one)).not.toMatch(/S3CRET/);
    expect(one).toEqual(two);
    expect(one.got[0]!.original).toEqual({ name: 'Ada', secret: '***' });
  });
});
