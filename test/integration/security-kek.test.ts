// An outside tester's findings against tenants' own key-encryption keys, each as a regression test in a real SoftHSM2
// token with the real tokenizer process: a KEK moved off survives no revocation (F1); the main tenant takes no KEK
// (F2); only AES-256, sensitive, never-extractable objects become KEKs, and an ambiguous label is a 400 (F3); a move
// racing a revocation answers only what committed (F4); public calls tell nothing of a revoked tenant (F5); deleting a
// live tenant destroys its KEK (F7).
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { buildProfile, vaultTest, type TestVault } from '../fixtures/vault.js';
import { NO_SOFTHSM } from '../fixtures/softhsm.js';

const it = vaultTest({ hsm: true, tokenizerEnv: { STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS: '2' } });

const UNAVAILABLE = 'The tenant\'s key is unavailable';

const uniq = () => randomUUID().replaceAll('-', '').slice(0, 12);

async function tenant(vault: TestVault, kek?: string): Promise<{ id: number; name: string; as: Record<string, string> }> {
  const name = `t${uniq()}`;
  const res = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Org', ...(kek && { kek }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.tenantid as number, name, as: { 'x-bunker-tenant': name } };
}

async function unlock(vault: TestVault): Promise<string> {
  return (await vault.call('BulkListUnlock', undefined)).body.unlockuuid as string;
}

/** Whether the HSM still holds an object labelled `label` (the tokenizer's own probe). */
async function held(vault: TestVault, label: string): Promise<boolean> {
  const [state] = await vault.api.services.tokenizer.tenantKekStatus([label]);
  return state !== 'missing';
}

async function person(vault: TestVault, as: Record<string, string>) {
  const profile = buildProfile();
  const made = await vault.call('UserCreate', { profile }, as);
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  return { ref: { mode: 'token', identity: made.body.token as string }, profile };
}

/**
 * The state a move off `label` leaves when the old object's destruction failed (an HSM away): `label` still wraps the
 * tenant key, recorded as an object the tenant moved off. Made by the tokenizer itself, as a move makes it.
 */
async function oldObjectLeftBehind(vault: TestVault, id: number, label: string): Promise<void> {
  const current = (await vault.api.services.db.global().tenants.kek(id))!;
  const wrapped = await vault.api.services.tokenizer.makeTenantKey(id, label, { label: current.label, wrapped: current.wrapped, revoked: false });
  await vault.api.services.db.global().tenants.retireKek(id, label, wrapped, Math.floor(Date.now() / 1000));
}

/** The tenant row as a database backup taken now would hold it (or its retired `label`), put back later (not revoked). */
async function rowBackup(vault: TestVault, id: number, label?: string): Promise<() => Promise<void>> {
  const tenants = vault.api.services.db.global().tenants;
  const copy = label ? { label, wrapped: (await tenants.retiredKeks(id)).find((k) => k.label === label)!.wrapped } : (await tenants.kek(id))!;
  return async () => {
    const g = vault.api.services.db.global().sql;
    await g.query(`update strongroom.tenants set kek_label = $2, kek_wrapped = $3, kek_revoked = null where id = $1`, [id, copy.label, copy.wrapped]);
    await vault.api.services.tenantKeks.refresh();
  };
}

async function publicCall(vault: TestVault, op: string, tenantName: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-tenant': tenantName }, body: '{}' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.skipIf(NO_SOFTHSM)(`security of tenants' KEKs${NO_SOFTHSM ? ` (skipped: ${NO_SOFTHSM})` : ''}`, () => {
  it('F1: destroys the object a tenant moved off, so a backup of its row from before the move opens nothing after revocation', async ({ vault }) => {
    const [a, b] = [`f1a-${uniq()}`, `f1b-${uniq()}`];
    vault.hsm!.makeKey(a);
    vault.hsm!.makeKey(b);
    const t = await tenant(vault, a);
    const p = await person(vault, t.as);
    const restore = await rowBackup(vault, t.id);
    const moved = await vault.call('TenantUpdate', { tenantid: t.id, kek: b });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    // The move committed, then the old object went: nothing but B opens the tenant key now.
    expect(await held(vault, a)).toBe(false);
    expect((await vault.call('UserGet', p.ref, t.as)).status).toBe(200);
    const revoked = await vault.call('TenantRevokeKek', { tenantid: t.id, unlockuuid: await unlock(vault) });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(await held(vault, b)).toBe(false);
    // The tester's attack: the row from before the move put back (label A, its wrapped tenant key, not revoked).
    await restore();
    const read = await vault.call('UserGet', p.ref, t.as);
    expect(read.status, JSON.stringify(read.body)).toBe(503);
    expect(read.body.message).toBe(UNAVAILABLE);
    expect(JSON.stringify(read.body)).not.toContain(p.profile.email);
  });

  it('F1: TenantRevokeKek destroys a recorded old object still in the HSM (a destruction that failed at the move)', async ({ vault }) => {
    const [a, b] = [`f1c-${uniq()}`, `f1d-${uniq()}`];
    vault.hsm!.makeKey(a);
    vault.hsm!.makeKey(b);
    const t = await tenant(vault, b);
    const p = await person(vault, t.as);
    await oldObjectLeftBehind(vault, t.id, a);
    const restore = await rowBackup(vault, t.id, a);
    expect(await held(vault, a)).toBe(true);
    expect((await vault.call('TenantRevokeKek', { tenantid: t.id, unlockuuid: await unlock(vault) })).status).toBe(200);
    expect(await held(vault, a)).toBe(false);
    expect(await held(vault, b)).toBe(false);
    await restore();
    expect((await vault.call('UserGet', p.ref, t.as)).status).toBe(503);
  });

  it('F2: refuses a kek for the main tenant (400 naming kek), by id or as the caller\'s own', async ({ vault }) => {
    const label = `f2-${uniq()}`;
    vault.hsm!.makeKey(label);
    for (const body of [{ tenantid: 1, kek: label }, { kek: label }]) {
      const res = await vault.call('TenantUpdate', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toMatch(/^Invalid API request parameter: kek: the main tenant/);
    }
    expect((await vault.call('TenantGet', { tenantid: 1 })).body.kek).toBeUndefined();
    expect(await held(vault, label)).toBe(true);
  });

  it('F3: refuses extractable, non-sensitive, AES-128, generic-secret and ambiguous objects (400 naming kek, no tenant left)', async ({ vault }) => {
    const s = uniq();
    vault.hsm!.readableKey(`leak-${s}`);
    vault.hsm!.makeKey(`aes128-${s}`, 'AES:16');
    vault.hsm!.makeKey(`generic-${s}`, 'GENERIC:32');
    vault.hsm!.makeKey(`twice-${s}`);
    vault.hsm!.makeKey(`twice-${s}`);
    const cases: [string, RegExp][] = [
      [`leak-${s}`, /not sensitive|extractable/],
      [`aes128-${s}`, /128-bit/],
      [`generic-${s}`, /not an AES key/],
      [`twice-${s}`, /ambiguous/],
    ];
    for (const [kek, why] of cases) {
      const name = `t${uniq()}`;
      const res = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Org', kek });
      expect(res.status, `${kek}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.message).toMatch(/^Invalid API request parameter: kek: /);
      expect(res.body.message).toMatch(why);
      expect((await vault.call('TenantGet', { tenantname: name })).status).toBe(404);
    }
    // A move onto an unfit object is refused the same way, the tenant staying where it was.
    const good = `good-${s}`;
    vault.hsm!.makeKey(good);
    const t = await tenant(vault, good);
    const move = await vault.call('TenantUpdate', { tenantid: t.id, kek: `aes128-${s}` });
    expect(move.status).toBe(400);
    expect((await vault.call('TenantGet', { tenantid: t.id })).body.kek).toBe(good);
  });

  it('F4: a move racing a revocation answers only what committed, and no object of the tenant survives', async ({ vault }) => {
    for (let n = 0; n < 6; n++) {
      const [o, m] = [`f4o-${uniq()}`, `f4n-${uniq()}`];
      vault.hsm!.makeKey(o);
      vault.hsm!.makeKey(m);
      const t = await tenant(vault, o);
      await person(vault, t.as);
      const u = await unlock(vault);
      const calls = [() => vault.call('TenantUpdate', { tenantid: t.id, kek: m }), () => vault.call('TenantRevokeKek', { tenantid: t.id, unlockuuid: u })];
      if (n % 2) calls.reverse();
      const answers = await Promise.all(calls.map((c) => c()));
      const [update, revoke] = n % 2 ? [answers[1]!, answers[0]!] : [answers[0]!, answers[1]!];
      expect(revoke.status, JSON.stringify(revoke.body)).toBe(200);
      expect([200, 409], JSON.stringify(update.body)).toContain(update.status);
      const row = (await vault.api.services.db.global().tenants.kek(t.id))!;
      expect(row.revoked).not.toBeNull();
      // A 200 says the tenant moved: its row names the new object, and the revocation then destroyed both.
      if (update.status === 200) expect(row.label).toBe(m);
      else expect(row.label).toBe(o);
      expect(await held(vault, o)).toBe(false);
      if (update.status === 200) expect(await held(vault, m)).toBe(false);
    }
  });

  it('F5: public calls answer a revoked tenant as any other; its people\'s data still fails closed', async ({ vault }) => {
    const label = `f5-${uniq()}`;
    vault.hsm!.makeKey(label);
    const live = await tenant(vault);
    const gone = await tenant(vault, label);
    const p = await person(vault, gone.as);
    expect((await vault.call('TenantRevokeKek', { tenantid: gone.id, unlockuuid: await unlock(vault) })).status).toBe(200);
    for (const op of ['TenantGetUIConf', 'CaptchaCreate']) {
      const answers = await Promise.all([live.name, gone.name, `nosuch${uniq()}`].map((n) => publicCall(vault, op, n)));
      expect(answers.map((a) => a.status), `${op}: ${JSON.stringify(answers)}`).toEqual([200, 200, 200]);
      expect(Object.keys(answers[1]!.body).sort()).toEqual(Object.keys(answers[0]!.body).sort());
    }
    const ui = await publicCall(vault, 'TenantGetUIConf', gone.name);
    expect(ui.body).toEqual((await publicCall(vault, 'TenantGetUIConf', live.name)).body);
    const read = await vault.call('UserGet', p.ref, gone.as);
    expect(read.status).toBe(503);
    expect(read.body.message).toBe(UNAVAILABLE);
  });

  it('F7: deleting a live tenant destroys its KEK object and those it moved off (crypto-shredding)', async ({ vault }) => {
    const [a, b] = [`f7a-${uniq()}`, `f7b-${uniq()}`];
    vault.hsm!.makeKey(a);
    vault.hsm!.makeKey(b);
    const t = await tenant(vault, b);
    await person(vault, t.as);
    await oldObjectLeftBehind(vault, t.id, a);
    expect(await held(vault, a)).toBe(true);
    const deleted = await vault.call('TenantDelete', { tenantid: t.id });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await held(vault, a)).toBe(false);
    expect(await held(vault, b)).toBe(false);
    expect((await vault.call('TenantGet', { tenantid: t.id })).status).toBe(404);
  });
});
