// Bounded documents, tried as an attacker would: a patch that doubles the profile, a document nested 10,000 deep,
// a profile past the size bound, an index field that cannot be indexed. Each answers 400 naming the field, stores
// nothing and leaves the vault serving.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const MAX = 64 * 1024;
const it = vaultTest({ env: { STRONGROOM_PROFILE_MAX_BYTES: String(MAX) } });

/** `{"a":{"a":…}}` nested `depth` deep, as text (JSON.stringify would itself overflow). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

async function person(vault: TestVault) {
  const profile = buildProfile();
  const token = (await vault.call('UserCreate', { profile })).body.token as string;
  return { token, ref: { mode: 'token', identity: token }, profile };
}

describe('JSON Patch', () => {
  it('refuses a doubling of the whole document once its size total passes the cap, and stores nothing', async ({ vault }) => {
    const p = await person(vault);
    const doubling = Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '', path: `/c${i}` }));
    for (const op of ['UserPatch', 'UserPatchRequest']) {
      const res = await vault.call(op, { ...p.ref, patch: doubling });
      expect(res.status, op).toBe(400);
      expect(res.body.message, op).toMatch(/patch\[\d+\]: the profile would grow past \d+ bytes/);
    }
    const move = await vault.call('UserPatch', { ...p.ref, patch: [{ op: 'add', path: '/x', value: { y: 1 } }, { op: 'move', from: '/x', path: '/x/z' }] });
    expect(move.status).toBe(400);
    const now = await vault.call('UserGet', p.ref);
    expect(now.body.profile).toEqual(p.profile);
    expect(now.body.version).toBe(1);
  });

  it('refuses more than 100 operations', async ({ vault }) => {
    const p = await person(vault);
    const patch = Array.from({ length: 101 }, (_, i) => ({ op: 'add', path: `/f${i}`, value: i }));
    const res = await vault.call('UserPatch', { ...p.ref, patch });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('patch');
    expect((await vault.call('UserPatch', { ...p.ref, patch: patch.slice(0, 100) })).status).toBe(200);
  });

  it('cannot grow a profile past the size bound, whatever the operations', async ({ vault }) => {
    const p = await person(vault);
    const chunk = 'x'.repeat(1000);
    // Each add is legal on its own; together they pass the bound, so the patch is refused as a whole.
    const patch = Array.from({ length: 80 }, (_, i) => ({ op: 'add', path: `/big${i}`, value: chunk }));
    const res = await vault.call('UserPatch', { ...p.ref, patch });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('profile');
    expect((await vault.call('UserGet', p.ref)).body.version).toBe(1);
  });
});

describe('size and depth', () => {
  it('refuses a profile or app record larger than the bound, on every write path', async ({ vault }) => {
    const big = { ...buildProfile(), blob: 'y'.repeat(MAX) };
    const create = await vault.call('UserCreate', { profile: big });
    expect(create.status).toBe(400);
    expect(create.body.message).toContain('profile');
    const bulk = await vault.call('UserCreateBulk', { records: [{ profile: buildProfile() }, { profile: big }] });
    expect(bulk.status).toBe(400);
    const p = await person(vault);
    for (const [op, body] of [
      ['UserUpdate', { ...p.ref, profile: { blob: 'y'.repeat(MAX) } }],
      ['UserUpdateRequest', { ...p.ref, profile: { blob: 'y'.repeat(MAX) } }],
      ['AppdataCreate', { ...p.ref, appname: 'big', appdata: { blob: 'y'.repeat(MAX) } }],
    ] as const) {
      const res = await vault.call(op, body);
      expect(res.status, op).toBe(400);
    }
    expect((await vault.call('UserGet', p.ref)).body.version).toBe(1);
    expect((await vault.call('AppdataGet', { ...p.ref, appname: 'big' })).status).toBe(404);
  });

  it('refuses values nested deeper than 64 levels with a 400 naming the field, and leaves an audit event', async ({ vault }) => {
    const p = await person(vault);
    const audited = async () => (await vault.call('BulkListAllAuditEvents', { unlockuuid: (await vault.call('BulkListUnlock')).body.unlockuuid, offset: 0, limit: 1 })).body.total as number;
    const before = await audited();
    const bombs: [string, string][] = [
      ['UserCreate', `{"profile":${nested(10_000)}}`],
      ['UserUpdate', `{"mode":"token","identity":"${p.token}","profile":${nested(10_000)}}`],
      ['AppdataCreate', `{"mode":"token","identity":"${p.token}","appname":"deep","appdata":${nested(10_000)}}`],
      ['PolicyCreate', `{"policyname":"deep","policy":${nested(10_000)}}`],
      ['UserGet', `{"mode":"token","identity":"${p.token}","request_metadata":${nested(10_000)}}`],
    ];
    for (const [op, body] of bombs) {
      const res = await vault.call(op, body);
      expect(res.status, op).toBe(400);
      expect(res.body.message, op).toMatch(/nested deeper than 64/);
    }
    // 64 levels are fine.
    expect((await vault.call('UserUpdate', `{"mode":"token","identity":"${p.token}","profile":{"n":${nested(60)}}}`)).status).toBe(200);
    // Each refused bomb left its event (and the two unlock calls and the update theirs).
    expect(await audited()).toBeGreaterThanOrEqual(before + bombs.length + 2);
    expect((await vault.call('UserGet', p.ref)).status).toBe(200);
  });
});

describe('index fields', () => {
  const FIELDS = ['login', 'email', 'phone', 'custom'] as const;
  /** The oracle: what an index can hold (null and absent are no value). */
  const indexable = (v: unknown) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
  const unindexableValue = fc.oneof(fc.boolean(), fc.array(fc.jsonValue(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }));
  const paths = fc.constantFrom('UserCreate', 'UserCreateBulk', 'UserUpdate', 'UserUpdateRequest', 'UserPatch');

  it('refuses a value no index can hold on every write path, with a 400 naming the field, and stores nothing (generated)', async ({ vault }) => {
    // A stranger's F5: such a value was stored, and the person was never found by that mode.
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIELDS), unindexableValue, paths, async (field, value, path) => {
        expect(indexable(value)).toBe(false);
        const witness = buildProfile();
        const profile = { ...buildProfile(), [field]: value };
        let res;
        let subject: Awaited<ReturnType<typeof person>> | undefined;
        if (path === 'UserCreate') res = await vault.call('UserCreate', { profile });
        else if (path === 'UserCreateBulk') res = await vault.call('UserCreateBulk', { records: [{ profile: witness }, { profile }] });
        else {
          subject = await person(vault);
          const change = path === 'UserPatch' ? { patch: [{ op: 'add', path: `/${field}`, value }] } : { profile: { [field]: value } };
          res = await vault.call(path, { ...subject.ref, ...change });
        }
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.message).toContain(`${field} is indexed: it must be a string or a number`);
        // Nothing stored: no bulk record (its good neighbour neither), no new version, no request.
        if (path === 'UserCreateBulk') expect((await vault.call('UserGet', { mode: 'login', identity: witness.login })).status).toBe(404);
        if (subject) {
          const now = await vault.call('UserGet', subject.ref);
          expect(now.body.version).toBe(1);
          expect(now.body.profile).toEqual(subject.profile);
          expect((await vault.call('UserGetRequests', subject.ref)).body.total ?? 0).toBe(0);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('finds a person by any string or number an index holds, and takes null as no value (generated)', async ({ vault }) => {
    const values = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }).filter((v) => v.trim() !== ''), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null));
    // The same number may come twice: the second is a duplicate of the first person's, who is the one found.
    const holder = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('login', 'custom'), values, async (field, generated) => {
        const value = typeof generated === 'string' ? `${generated}${randomUUID().slice(0, 4)}` : generated;
        const created = await vault.call('UserCreate', { profile: { ...buildProfile(), [field]: value } });
        const key = `${field}:${String(value)}`;
        const earlier = value === null ? undefined : holder.get(key);
        expect(created.status, JSON.stringify(created.body)).toBe(earlier ? 409 : 200);
        if (value === null) return;
        if (!earlier) holder.set(key, created.body.token as string);
        const found = await vault.call('UserGet', { mode: field, identity: String(value) });
        expect(found.status, JSON.stringify({ field, value })).toBe(200);
        expect(found.body.token).toBe(holder.get(key));
      }),
      { numRuns: 30 },
    );
  });
});
