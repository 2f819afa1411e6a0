// Bounded documents, tried as an attacker would: a patch that doubles the profile, a document nested 10,000 deep,
// a profile past the size bound. Each answers 400 naming the field, stores nothing and leaves the vault serving.
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
