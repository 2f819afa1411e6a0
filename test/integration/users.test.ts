// User profile operations over HTTP against a real tokenizer process and a real database.
import { describe, expect } from 'vitest';
import { it, buildProfile } from '../fixtures/vault.js';

describe('UserCreate and UserGet', () => {
  it('stores a profile and returns it exactly as sent, by every mode', async ({ vault }) => {
    const profile = buildProfile({ email: ' Mixed.Case@Example.COM ', phone: '+44 7700 900 456', custom: 'legacy-42', nested: { a: [1, 2, { b: null }] } });
    const created = await vault.call('UserCreate', { profile });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('ok');
    expect(created.body.token).toMatch(/^[0-9a-f-]{36}$/);
    const { token } = created.body;
    for (const [mode, identity] of [
      ['token', token],
      ['login', profile.login],
      ['email', 'mixed.case@example.com'],
      ['phone', '+447700900456'],
      ['custom', 'legacy-42'],
    ]) {
      const got = await vault.call('UserGet', { mode, identity });
      expect(got.status, `${mode}`).toBe(200);
      expect(got.body).toMatchObject({ status: 'ok', token, version: 1, finaltime: 0, slidingtime: 0, expirationtime: 0, grouproles: [] });
      expect(got.body.profile).toEqual(profile);
    }
  });

  it('answers many concurrent reads each with its own user, and a missing one with 404', async ({ vault }) => {
    const profiles = Array.from({ length: 24 }, () => buildProfile());
    const tokens: string[] = [];
    for (const profile of profiles) tokens.push((await vault.call('UserCreate', { profile })).body.token);
    // Same turn of the event loop on the server: reads of one mode share a SELECT and a tokenizer call.
    const reads = await Promise.all([
      ...profiles.map((p, i) => (i % 2 ? vault.call('UserGet', { mode: 'email', identity: p.email }) : vault.call('UserGet', { mode: 'token', identity: tokens[i] }))),
      vault.call('UserGet', { mode: 'email', identity: 'nobody-at-all@example.com' }),
      vault.call('UserGet', { mode: 'token', identity: '00000000-0000-4000-8000-000000000000' }),
    ]);
    profiles.forEach((p, i) => {
      expect(reads[i]!.status).toBe(200);
      expect(reads[i]!.body.token).toBe(tokens[i]);
      expect(reads[i]!.body.profile).toEqual(p);
    });
    expect(reads.slice(-2).map((r) => r.status)).toEqual([404, 404]);
  });

  it('answers 409 naming the index when a unique field is taken', async ({ vault }) => {
    const profile = buildProfile();
    expect((await vault.call('UserCreate', { profile })).status).toBe(200);
    const dup = await vault.call('UserCreate', { profile: { ...buildProfile(), email: String(profile.email).toUpperCase() } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ status: 'error', message: 'Duplicate index: email' });
  });

  it('allows a profile without any index field, found by token only', async ({ vault }) => {
    const created = await vault.call('UserCreate', { profile: { name: 'No Index' } });
    expect(created.status).toBe(200);
    const got = await vault.call('UserGet', { mode: 'token', identity: created.body.token });
    expect(got.body.profile).toEqual({ name: 'No Index' });
  });

  it('rejects bad input with a 400 naming the field', async ({ vault }) => {
    expect((await vault.call('UserCreate', {})).body).toEqual({ status: 'error', message: 'Missing API request parameters: profile' });
    const wrongType = await vault.call('UserCreate', { profile: 'text' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/profile/);
    const badTime = await vault.call('UserCreate', { profile: buildProfile(), finaltime: 'soon' });
    expect(badTime.status).toBe(400);
    expect(badTime.body.message).toMatch(/finaltime/);
    const missing = await vault.call('UserGet', {});
    expect(missing.body.message).toBe('Missing API request parameters: mode, identity');
    const badMode = await vault.call('UserGet', { mode: 'nickname', identity: 'x' });
    expect(badMode.status).toBe(400);
    expect(badMode.body.message).toBe('The mode parameter has an incorrect format: use login, token, email, phone or custom');
    const badUuid = await vault.call('UserGet', { mode: 'token', identity: 'not-a-uuid' });
    expect(badUuid.status).toBe(400);
    expect(badUuid.body.message).toBe('Bad UUID');
  });

  it('answers 404 for a user that does not exist', async ({ vault }) => {
    const got = await vault.call('UserGet', { mode: 'email', identity: 'nobody@example.com' });
    expect(got.status).toBe(404);
    expect(got.body).toEqual({ status: 'error', message: 'The user record was not found' });
  });

  it('treats null options as absent and accepts expiry in every form', async ({ vault }) => {
    const created = await vault.call('UserCreate', { profile: buildProfile(), finaltime: '1y', slidingtime: '30d', groupname: null });
    expect(created.status).toBe(200);
    const got = await vault.call('UserGet', { mode: 'token', identity: created.body.token });
    const now = Math.floor(Date.now() / 1000);
    expect(got.body.finaltime).toBeGreaterThan(now + 364 * 86400);
    expect(got.body.slidingtime).toBe(30 * 86400);
    expect(got.body.expirationtime).toBeLessThanOrEqual(now + 30 * 86400 + 5);
    expect(got.body.expirationtime).toBeGreaterThan(now + 29 * 86400);
  });

  it('reads an expired user as missing', async ({ vault }) => {
    const created = await vault.call('UserCreate', { profile: buildProfile(), finaltime: 1 });
    expect(created.status).toBe(200);
    // As if its second had passed.
    await vault.api.services.db.orm.em.getConnection().execute('update tenant_1.users set expires_at = expires_at - 3600 where token = ?', [created.body.token]);
    const got = await vault.call('UserGet', { mode: 'token', identity: created.body.token });
    expect(got.status).toBe(404);
  });
});

describe('UserUpdate, UserPatch and versions', () => {
  it('merges the sent fields, deletes nulls, and keeps the old profile as a version', async ({ vault }) => {
    const profile = buildProfile({ city: 'London', pets: ['cat'] });
    const { token } = (await vault.call('UserCreate', { profile })).body;
    const upd = await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { city: 'Paris', pets: null, age: 36 } });
    expect(upd.body).toEqual({ status: 'ok' });
    const got = await vault.call('UserGet', { mode: 'token', identity: token });
    const { pets: _p, ...rest } = profile;
    expect(got.body.profile).toEqual({ ...rest, city: 'Paris', age: 36 });
    expect(got.body.version).toBe(2);
    const v1 = await vault.call('UserGet', { mode: 'token', identity: token, version: 1 });
    expect(v1.body.profile).toEqual(profile);
    expect(v1.body.version).toBe(1);
    const versions = await vault.call('UserListVersions', { mode: 'token', identity: token });
    expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    expect(versions.body.versions[0].md5).toMatch(/^[0-9a-f]{32}$/);
    const missingVersion = await vault.call('UserGet', { mode: 'token', identity: token, version: 7 });
    expect(missingVersion.status).toBe(404);
  });

  it('merges keys named constructor or prototype like any other, and the keys after them', async ({ vault }) => {
    const token = (await vault.call('UserCreate', { profile: { constructor: { x: 1 }, prototype: 1 } })).body.token as string;
    const upd = await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { constructor: { y: 1 }, prototype: null, after: 2 } });
    expect(upd.body.status).toBe('ok');
    expect((await vault.call('UserGet', { mode: 'token', identity: token })).body.profile).toEqual({ constructor: { x: 1, y: 1 }, after: 2 });
  });

  it('moves the lookup index when the email changes, and refuses a taken one', async ({ vault }) => {
    const a = buildProfile();
    const b = buildProfile();
    const { token } = (await vault.call('UserCreate', { profile: a })).body;
    await vault.call('UserCreate', { profile: b });
    await vault.call('UserUpdate', { mode: 'email', identity: a.email, profile: { email: 'moved@example.org' } });
    expect((await vault.call('UserGet', { mode: 'email', identity: a.email })).status).toBe(404);
    expect((await vault.call('UserGet', { mode: 'email', identity: 'moved@example.org' })).body.token).toBe(token);
    const taken = await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { login: b.login } });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe('Duplicate index: login');
    expect((await vault.call('UserGet', { mode: 'token', identity: token })).body.profile.login).toBe(a.login);
  });

  it('applies an RFC 6902 patch and rejects one that cannot apply', async ({ vault }) => {
    const { token } = (await vault.call('UserCreate', { profile: buildProfile({ tags: ['a'] }) })).body;
    const ok = await vault.call('UserPatch', {
      mode: 'token',
      identity: token,
      patch: [
        { op: 'add', path: '/tags/-', value: 'b' },
        { op: 'replace', path: '/name', value: 'Grace' },
        { op: 'remove', path: '/phone' },
      ],
    });
    expect(ok.body).toEqual({ status: 'ok' });
    const got = (await vault.call('UserGet', { mode: 'token', identity: token })).body.profile;
    expect(got.tags).toEqual(['a', 'b']);
    expect(got.name).toBe('Grace');
    expect(got.phone).toBeUndefined();
    const bad = await vault.call('UserPatch', { mode: 'token', identity: token, patch: [{ op: 'remove', path: '/nothing/here' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/patch/);
    const badOp = await vault.call('UserPatch', { mode: 'token', identity: token, patch: [{ op: 'explode', path: '/a' }] });
    expect(badOp.status).toBe(400);
    const notObject = await vault.call('UserPatch', { mode: 'token', identity: token, patch: [{ op: 'replace', path: '', value: 3 }] });
    expect(notObject.status).toBe(400);
  });

  it('answers 404 when updating or patching a missing user', async ({ vault }) => {
    expect((await vault.call('UserUpdate', { mode: 'login', identity: 'ghost', profile: { a: 1 } })).status).toBe(404);
    expect((await vault.call('UserPatch', { mode: 'login', identity: 'ghost', patch: [{ op: 'add', path: '/a', value: 1 }] })).status).toBe(404);
  });
});

describe('UserDelete', () => {
  it('erases the user so no mode finds it, and frees its indexes', async ({ vault }) => {
    const profile = buildProfile();
    const { token } = (await vault.call('UserCreate', { profile })).body;
    expect((await vault.call('UserDelete', { mode: 'email', identity: profile.email })).body).toEqual({ status: 'ok' });
    expect((await vault.call('UserGet', { mode: 'token', identity: token })).status).toBe(404);
    expect((await vault.call('UserDelete', { mode: 'token', identity: token })).status).toBe(404);
    expect((await vault.call('UserCreate', { profile })).status).toBe(200);
  });
});

describe('UserCreateBulk', () => {
  it('creates many, echoes profiles, and reports duplicates without failing the batch', async ({ vault }) => {
    const existing = buildProfile();
    await vault.call('UserCreate', { profile: existing });
    const fresh = [buildProfile(), buildProfile(), buildProfile()];
    const twin = { ...buildProfile(), login: fresh[0]!.login };
    const res = await vault.call('UserCreateBulk', {
      records: [...fresh.map((profile) => ({ profile })), { profile: { ...buildProfile(), email: existing.email } }, { profile: twin }],
      finaltime: '10d',
    });
    expect(res.status).toBe(200);
    expect(res.body.created).toHaveLength(3);
    expect(res.body.created.map((c: { profile: unknown }) => c.profile)).toEqual(fresh);
    expect(res.body.errors).toHaveLength(2);
    expect(res.body.errors[0].reason).toBe('Duplicate email value');
    expect(res.body.errors[0].profile.email).toBe(existing.email);
    expect(res.body.errors[1]).toEqual({ profile: twin, reason: 'Duplicate login value' });
    const got = await vault.call('UserGet', { mode: 'login', identity: fresh[2]!.login });
    expect(got.body.finaltime).toBeGreaterThan(Math.floor(Date.now() / 1000) + 9 * 86400);
  });

  it('rejects an empty or malformed batch', async ({ vault }) => {
    expect((await vault.call('UserCreateBulk', { records: [] })).status).toBe(400);
    expect((await vault.call('UserCreateBulk', {})).body.message).toBe('Missing API request parameters: records');
    const bad = await vault.call('UserCreateBulk', { records: [{ profile: 5 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/records\.0\.profile/);
  });
});

describe('UserDeleteBulk and the sweeper', () => {
  it('erases the users named, skips unknown ones, and counts what it erased', async ({ vault }) => {
    const a = buildProfile();
    const b = buildProfile();
    const ta = (await vault.call('UserCreate', { profile: a })).body.token;
    await vault.call('UserCreate', { profile: b });
    const res = await vault.call('UserDeleteBulk', {
      users: [
        { mode: 'token', identity: ta },
        { mode: 'email', identity: b.email },
        { mode: 'email', identity: 'nobody-at-all@example.com' },
        { mode: 'login', identity: a.login },
      ],
    });
    expect(res.body).toEqual({ status: 'ok', deleted_count: 2 });
    expect((await vault.call('UserGet', { mode: 'email', identity: b.email })).status).toBe(404);
    expect((await vault.call('UserDeleteBulk', { users: [] })).status).toBe(400);
    expect((await vault.call('UserDeleteBulk', { users: [{ mode: 'token', identity: 'not-a-uuid' }] })).status).toBe(400);
  });

  it('sweeps expired users away with their versions and app data', async ({ vault }) => {
    const profile = buildProfile();
    const token = (await vault.call('UserCreate', { profile, finaltime: '1h' })).body.token;
    await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { more: 1 } });
    await vault.call('AppdataCreate', { mode: 'token', identity: token, appname: 'swept', appdata: { a: 1 } });
    const removed = await vault.api.services.sweeper.sweepOnce(Math.floor(Date.now() / 1000) + 7_200);
    expect(removed).toBeGreaterThanOrEqual(1);
    const left = await vault.api.services.db.orm.em
      .getConnection()
      .execute('select (select count(*) from tenant_1.users where token = ?) as u, (select count(*) from tenant_1.user_versions where token = ?) as v, (select count(*) from tenant_1.app_records where user_token = ?) as a', [token, token, token]);
    expect(left[0]).toEqual({ u: '0', v: '0', a: '0' });
  });
});
