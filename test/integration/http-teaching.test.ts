// Errors and answers that teach: what was missing, what was meant, what is accepted, what was ignored or cut.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';
import { fieldsOf } from '../../api/ops/unknown-fields.js';
import { operations } from '../../api/ops/index.js';

async function post(vault: TestVault, op: string, body: string | undefined, headers: Record<string, string>) {
  const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers: { 'x-bunker-token': vault.rootToken, ...headers }, body });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const now = () => Math.floor(Date.now() / 1000);

describe('authentication errors', () => {
  it('says a missing header is missing, and any token that does not work is Access denied', async ({ vault }) => {
    const ref = { mode: 'login', identity: 'x' };
    const missing = await vault.call('UserGet', ref, { 'x-bunker-token': '' });
    expect(missing).toMatchObject({ status: 403, body: { status: 'error', message: 'missing X-Bunker-Token header' } });
    for (const token of [randomUUID(), 'garbage', 'x'.repeat(300)]) {
      expect((await vault.call('UserGet', ref, { 'x-bunker-token': token })).body, token.slice(0, 10)).toEqual({ status: 'error', message: 'Access denied' });
    }
  });
});

describe('unknown operations', () => {
  it('answers 404 with the nearest names, never echoing the name asked for', async ({ vault }) => {
    expect((await vault.call('UserGett', {})).body).toEqual({ status: 'error', message: 'The API request was not found (did you mean UserGet?)' });
    expect((await vault.call('usercreate', {})).body.message).toBe('The API request was not found (did you mean UserCreate?)');
    const far = await vault.call('UserTeleport', {});
    expect(far).toMatchObject({ status: 404, body: { status: 'error', message: 'The API request was not found' } });
  });
});

describe('bodies that are not JSON', () => {
  const json = JSON.stringify({ profile: buildProfile() });

  it('refuses JSON sent as text/plain, a form or with no type with 415, saying how to send it', async ({ vault }) => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const res = await post(vault, 'UserCreate', json, type ? { 'content-type': type } : {});
      expect(res.status, type).toBe(415);
      expect(res.body.status).toBe('error');
      expect(res.body.message).toMatch(/^The request body must be JSON, sent with Content-Type: application\/json \(this one was sent (as \S+|with none)\)$/);
      if (type) expect(res.body.message).toContain(type);
    }
  });

  it('reads what the SDKs send: JSON with or without a charset, or no body at all', async ({ vault }) => {
    expect((await post(vault, 'UserCreate', JSON.stringify({ profile: buildProfile() }), { 'content-type': 'application/json' })).status).toBe(200);
    expect((await post(vault, 'UserCreate', JSON.stringify({ profile: buildProfile() }), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    // Python's SDK sends no body for calls without data, its Content-Type header set all the same.
    expect((await post(vault, 'GroupListAllGroups', undefined, { 'content-type': 'application/json' })).status).toBe(200);
    expect((await post(vault, 'GroupListAllGroups', '', { 'content-type': 'text/plain' })).status).toBe(200);
  });
});

describe('accepted values in a 400', () => {
  it('lists the modes and the duration forms', async ({ vault }) => {
    expect((await vault.call('UserGet', { mode: 'nickname', identity: 'x' })).body.message).toBe('The mode parameter has an incorrect format: use login, token, email, phone or custom');
    const bad = await vault.call('UserCreate', { profile: buildProfile(), finaltime: '30 minutes' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^The finaltime parameter has an incorrect format: use a number with s, min \(minutes\), h, d, m or mo \(months of 31 days\) or y/);
  });
});

describe('unknown fields', () => {
  it('answers a typo in warnings, naming the field meant, and serves the call', async ({ vault }) => {
    const res = await vault.call('UserCreate', { profile: buildProfile(), finaltme: '1d' });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual(['unknown field "finaltme" ignored (did you mean finaltime?)']);
    const clean = await vault.call('UserCreate', { profile: buildProfile(), finaltime: '1d', request_metadata: { why: 'test' } });
    expect(clean.body.warnings).toBeUndefined();
  });

  it('gives any unknown field name exactly one warning naming it, and never an error', async ({ vault }) => {
    const { token } = (await vault.call('UserCreate', { profile: buildProfile() })).body;
    const known = fieldsOf(operations.find((o) => o.name === 'UserGet')!);
    const name = fc.string({ maxLength: 40, unit: 'binary' }).filter((n) => !known.includes(n) && n !== '__proto__');
    await fc.assert(
      // A `__proto__` key at any depth is refused whole (below), so the values here hold none.
      fc.asyncProperty(name, fc.jsonValue().filter((v) => !JSON.stringify(v).includes('"__proto__":')), async (field, value) => {
        const res = await vault.call('UserGet', { mode: 'token', identity: token, [field]: value });
        expect(res.status).toBe(200);
        expect(res.body.warnings).toHaveLength(1);
        expect(res.body.warnings[0]).toContain(`unknown field ${JSON.stringify(field)} ignored`);
      }),
      { numRuns: 40 },
    );
  });
});

describe('prototype keys', () => {
  it('refuses a __proto__ key at any depth with a 400 naming it', async ({ vault }) => {
    const { token } = (await vault.call('UserCreate', { profile: buildProfile() })).body;
    for (const extra of ['{"__proto__":""}', '{"x":{"":{"__proto__":{"a":1}}}}', '{"profile":[{"__proto__":null}]}']) {
      const res = await vault.call('UserGet', { mode: 'token', identity: token, ...(JSON.parse(extra) as object) });
      expect(res.status, extra).toBe(400);
      expect(res.body.message).toBe('The request body may not contain a field named __proto__');
    }
  });
});

describe('capped lifetimes', () => {
  it('says when an xtoken, a session or a share was given less than it asked for, and when it was not', async ({ vault }) => {
    const { token } = (await vault.call('UserCreate', { profile: buildProfile() })).body;
    const ref = { mode: 'token', identity: token };
    const year = await vault.call('XTokenCreateForUser', { ...ref, finaltime: '1y' });
    expect(year.body).toMatchObject({ status: 'ok', capped: true });
    expect(year.body.expires).toBeGreaterThanOrEqual(now() + 86_400 - 5);
    expect(year.body.expires).toBeLessThanOrEqual(now() + 86_400);
    const half = await vault.call('XTokenCreateForUser', { ...ref, finaltime: '30min' });
    expect(half.body.capped).toBeUndefined();
    expect(half.body.expires).toBeLessThanOrEqual(now() + 1800);
    const session = await vault.call('SessionUpsert', { sessionuuid: randomUUID(), sessiondata: { token }, slidingtime: '1d' });
    expect(session.body).toMatchObject({ status: 'ok', capped: true });
    expect(session.body.expirationtime).toBeLessThanOrEqual(now() + 3600);
    const share = await vault.call('SharedRecordCreate', { ...ref, fields: 'name', finaltime: '2y' });
    expect(share.body).toMatchObject({ status: 'ok', capped: true });
    expect((await vault.call('SharedRecordCreate', { ...ref, fields: 'name', finaltime: '7d' })).body.capped).toBeUndefined();
  });
});

describe('policies', () => {
  it('refuses an unknown action naming the nearest, and warns on a field path that nearly names an indexed field', async ({ vault }) => {
    const name = `p${randomUUID().slice(0, 8)}`;
    const typo = await vault.call('PolicyCreate', { policyname: name, policy: { Effect: 'Allow', Action: 'UserGett' } });
    expect(typo.status).toBe(400);
    expect(typo.body.message).toContain('UserGett names no operation (did you mean UserGet?)');
    const near = await vault.call('PolicyCreate', { policyname: name, policy: { Effect: 'Deny', Action: 'UserGet', Resource: ['users.profile.emial', 'users.profile.name'] } });
    expect(near.status).toBe(200);
    expect(near.body.warnings).toEqual([expect.stringMatching(/^0\.Resource: users\.profile\.emial: .*\(did you mean email\?\)/)]);
    const updated = await vault.call('PolicyUpdate', { policyid: near.body.policyid, policy: { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.email' } });
    expect(updated.body).toEqual({ status: 'ok' });
  });
});

describe('first contact', () => {
  it('sends / to the console', async ({ vault }) => {
    const res = await fetch(`${vault.url}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
  });
});
