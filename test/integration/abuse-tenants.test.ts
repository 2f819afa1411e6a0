// Tenant resolution, tried as an attacker would: a tenant admin renaming its tenant to the vault's own host name
// to catch the root token's traffic, Hosts that are not under the tenant domain, and a shared record's public
// link, which must work whatever tenant it belongs to and without naming one.
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const it = vaultTest({ env: { STRONGROOM_TENANT_DOMAIN: 'vault.example.com' } });

/** POST with an arbitrary Host header (fetch will not send one). */
function postWithHost(vault: TestVault, host: string, op: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const url = new URL(vault.url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: `/v2/${op}`, method: 'POST', headers: { host, 'content-type': 'application/json', ...(token ? { 'x-bunker-token': token } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const nameOf = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 10)}`;

async function tenant(vault: TestVault, name = nameOf('t')) {
  const made = await vault.call('TenantCreate', { tenantname: name, tenantorg: `${name} Ltd` });
  expect(made.status).toBe(200);
  return { id: made.body.tenantid as number, name, admin: made.body.xtoken as string };
}

describe('reserved names', () => {
  it('can be neither created nor renamed to, whoever asks', async ({ vault }) => {
    const t = await tenant(vault);
    for (const name of ['vault', 'www', 'api', 'main', 'example', 'com', 'admin']) {
      const created = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Evil' });
      expect(created.status, name).toBe(400);
      expect(created.body.message, name).toContain('tenantname');
      for (const token of [t.admin, vault.rootToken]) {
        const renamed = await vault.call('TenantUpdate', { tenantid: t.id, tenantname: name }, { 'x-bunker-token': token });
        expect(renamed.status, name).toBe(400);
      }
    }
    expect((await vault.call('TenantGet', { tenantid: t.id })).body.tenantname).toBe(t.name);
  });
});

describe('the Host header', () => {
  it('never moves the root token into another tenant, even the one a hijacker renamed itself to', async ({ vault }) => {
    const t = await tenant(vault);
    // The attacker's tenant holds a person; root's traffic for `<t>.vault.example.com` must not see it.
    const planted = await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-token': t.admin });
    expect(planted.status).toBe(200);
    const viaHost = await postWithHost(vault, `${t.name}.vault.example.com`, 'UserGet', { mode: 'token', identity: planted.body.token }, vault.rootToken);
    expect(viaHost.status).toBe(404);
    // Root's write by Host lands in the main tenant, not in the attacker's.
    const profile = buildProfile();
    const written = await postWithHost(vault, `${t.name}.vault.example.com`, 'UserCreate', { profile }, vault.rootToken);
    expect(written.status).toBe(200);
    expect((await vault.call('UserGet', { mode: 'token', identity: written.body.token })).status).toBe(200);
    expect((await vault.call('UserGet', { mode: 'token', identity: written.body.token }, { 'x-bunker-token': t.admin })).status).toBe(404);
  });

  it('selects a tenant only as <name>.<domain>: other hosts leave a token in its own tenant', async ({ vault }) => {
    const a = await tenant(vault);
    const b = await tenant(vault);
    const user = await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-token': a.admin });
    const get = (host: string) => postWithHost(vault, host, 'UserGet', { mode: 'token', identity: user.body.token }, a.admin);
    expect((await get(`${a.name}.vault.example.com`)).status).toBe(200);
    // Names outside the domain, or deeper in it, are no tenant name: the token's own tenant applies.
    for (const host of [`${b.name}.evil.example.org`, `${b.name}.${a.name}.vault.example.com`, `${b.name}.vault.example.com.evil.org`, `${b.name}`]) {
      expect((await get(host)).status, host).toBe(200);
    }
    // Another tenant's subdomain under the domain is refused, like any other tenant.
    expect((await get(`${b.name}.vault.example.com`)).status).toBe(403);
  });
});

describe('shared records', () => {
  it('open by their uuid alone, whatever tenant they belong to', async ({ vault }) => {
    const t = await tenant(vault);
    const profile = buildProfile({ city: 'Paris' });
    const user = await vault.call('UserCreate', { profile }, { 'x-bunker-token': t.admin });
    const shared = await vault.call('SharedRecordCreate', { mode: 'token', identity: user.body.token, fields: 'city' }, { 'x-bunker-token': t.admin });
    expect(shared.status).toBe(200);
    const res = await fetch(`${vault.url}/v2/SharedRecordGet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recorduuid: shared.body.recorduuid }) });
    expect(await res.json()).toEqual({ status: 'ok', data: { city: 'Paris' }, expirationtime: shared.body.expirationtime });
    // The retrieval is audited in the record's own tenant.
    const events = await vault.call('AuditListUserEvents', { mode: 'token', identity: user.body.token }, { 'x-bunker-token': t.admin });
    expect(events.body.rows.map((e: { title: string }) => e.title)).toContain('SharedRecordGet');
    // An unknown uuid is 404, named tenant or not.
    const unknown = await fetch(`${vault.url}/v2/SharedRecordGet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ recorduuid: randomUUID() }) });
    expect(unknown.status).toBe(404);
  });
});
