// Tenants over HTTP: creation with its own schema and admin token, resolution, isolation, listing, deletion.
import { request } from 'node:http';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

// Subdomains of vault.example select tenants (STRONGROOM_TENANT_DOMAIN).
const it = vaultTest({ env: { STRONGROOM_TENANT_DOMAIN: 'vault.example' } });
import { tenantSchema } from '../../api/store/database.js';

/** A unique tenant name for this run. */
const nameOf = (base: string) => `${base}${Math.random().toString(36).slice(2, 8)}`;

async function createTenant(vault: TestVault, name = nameOf('t'), org = 'Org') {
  const res = await vault.call('TenantCreate', { tenantname: name, tenantorg: org, email: `admin@${name}.example` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { name, id: res.body.tenantid as number, xtoken: res.body.xtoken as string };
}

/** POST with an arbitrary Host header (fetch will not send one). */
function postWithHost(vault: TestVault, host: string, op: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const data = JSON.stringify(body);
  const url = new URL(vault.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: `/v2/${op}`, method: 'POST', headers: { host, 'content-type': 'application/json', ...(token ? { 'x-bunker-token': token } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function schemaExists(vault: TestVault, id: number): Promise<boolean> {
  const rows = await vault.api.services.db.orm.em.getConnection().execute('select 1 from information_schema.schemata where schema_name = ?', [tenantSchema(id)]);
  return rows.length > 0;
}

describe('TenantCreate', () => {
  it('creates the tenant with its own schema and returns its id and admin token once', async ({ vault }) => {
    const t = await createTenant(vault);
    expect(t.id).toBeGreaterThan(1);
    expect(t.xtoken).toMatch(/^[0-9a-f-]{36}$/);
    expect(await schemaExists(vault, t.id)).toBe(true);
  });

  it('refuses a taken name with 409 and a bad name or missing field with 400', async ({ vault }) => {
    const t = await createTenant(vault);
    const dup = await vault.call('TenantCreate', { tenantname: t.name, tenantorg: 'Other' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ status: 'error', message: 'Duplicate tenant name' });
    expect((await vault.call('TenantCreate', { tenantname: 'Bad-Name', tenantorg: 'x' })).status).toBe(400);
    expect((await vault.call('TenantCreate', { tenantname: 'ok1' })).body.message).toBe('Missing API request parameters: tenantorg');
  });

  it('refuses a kek under static custody with 400 naming kek, leaving no tenant behind', async ({ vault }) => {
    const name = nameOf('kek');
    const res = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'x', kek: 'tenant-kek' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid API request parameter: kek: per-tenant key-encryption keys need the tokenizer\'s pkcs11 custody (STRONGROOM_TOKENIZER_CUSTODY=pkcs11)');
    expect((await vault.call('TenantGet', { tenantname: name })).status).toBe(404);
    const t = await createTenant(vault);
    expect((await vault.call('TenantUpdate', { tenantid: t.id, kek: 'tenant-kek' })).status).toBe(400);
    expect((await vault.call('TenantUpdate', { tenantid: t.id, kek: '' })).status).toBe(400);
    expect((await vault.call('TenantRevokeKek', { tenantid: t.id, unlockuuid: (await vault.call('BulkListUnlock')).body.unlockuuid })).status).toBe(409);
  });

  it('is for the main tenant only: a tenant admin gets 403', async ({ vault }) => {
    const t = await createTenant(vault);
    const res = await vault.call('TenantCreate', { tenantname: nameOf('x'), tenantorg: 'x' }, { 'x-bunker-token': t.xtoken });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Access denied');
  });
});

describe('TenantRotateAdminToken', () => {
  it('issues a new admin token once and retires every earlier one at once', async ({ vault }) => {
    const t = await createTenant(vault);
    const admin = (xtoken: string) => ({ 'x-bunker-token': xtoken, 'x-bunker-tenant': t.name });
    expect((await vault.call('TenantGet', { tenantid: t.id }, admin(t.xtoken))).status).toBe(200);
    const rotated = await vault.call('TenantRotateAdminToken', { tenantid: t.id });
    expect(rotated.body).toEqual({ status: 'ok', tenantid: t.id, xtoken: expect.stringMatching(/^[0-9a-f-]{36}$/), revoked: 1 });
    expect((await vault.call('TenantGet', { tenantid: t.id }, admin(t.xtoken))).body).toEqual({ status: 'error', message: 'Access denied' });
    expect((await vault.call('TenantGet', { tenantid: t.id }, admin(rotated.body.xtoken))).status).toBe(200);
    // The tenant's data stays; its new admin works with it.
    expect((await vault.call('UserCreate', { profile: buildProfile() }, admin(rotated.body.xtoken))).status).toBe(200);
  });

  it('is for the main tenant only, and answers 404 for an unknown tenant', async ({ vault }) => {
    const t = await createTenant(vault);
    const own = await vault.call('TenantRotateAdminToken', { tenantid: t.id }, { 'x-bunker-token': t.xtoken, 'x-bunker-tenant': t.name });
    expect(own.status).toBe(403);
    const missing = await vault.call('TenantRotateAdminToken', { tenantid: 999_999 });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('The tenant record was not found');
    expect((await vault.call('TenantRotateAdminToken', {})).body.message).toBe('Missing API request parameters: tenantid');
  });
});

describe('tenant resolution and isolation', () => {
  it('keeps each tenant to its own data, by header, by subdomain and by the token’s own tenant', async ({ vault }) => {
    const a = await createTenant(vault);
    const b = await createTenant(vault);
    const profile = buildProfile();
    // The tenant admin token acts in its own tenant with no header at all.
    const made = await vault.call('UserCreate', { profile }, { 'x-bunker-token': a.xtoken });
    expect(made.status).toBe(200);
    const token = made.body.token as string;
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': a.xtoken })).status).toBe(200);
    // Its admin also reaches it by its subdomain; root by header only, never by Host, which a client may not
    // control. In the main tenant and in tenant B it does not exist.
    expect((await postWithHost(vault, `${a.name}.vault.example`, 'UserGet', { mode: 'token', identity: token }, a.xtoken)).status).toBe(200);
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-tenant': a.name })).body.profile).toEqual(profile);
    expect((await postWithHost(vault, `${a.name}.vault.example`, 'UserGet', { mode: 'token', identity: token }, vault.rootToken)).status).toBe(404);
    expect((await vault.call('UserGet', { mode: 'token', identity: token })).status).toBe(404);
    expect((await vault.call('UserGet', { mode: 'email', identity: profile.email }, { 'x-bunker-tenant': b.name })).status).toBe(404);
    // The same unique email may exist once per tenant.
    expect((await vault.call('UserCreate', { profile }, { 'x-bunker-tenant': b.name })).status).toBe(200);
  });

  it('answers a token used with another tenant, existing or not, with the same 403', async ({ vault }) => {
    const a = await createTenant(vault);
    const b = await createTenant(vault);
    const asA = (extra: Record<string, string>) => ({ 'x-bunker-token': a.xtoken, ...extra });
    const answers = [
      await vault.call('UserGet', { mode: 'login', identity: 'x' }, asA({ 'x-bunker-tenant': b.name })),
      await vault.call('UserGet', { mode: 'login', identity: 'x' }, asA({ 'x-bunker-tenant': 'nosuchtenant' })),
      await vault.call('UserGet', { mode: 'login', identity: 'x' }, asA({ 'x-bunker-tenant': 'main' })),
      await postWithHost(vault, `${b.name}.vault.example`, 'UserGet', { mode: 'login', identity: 'x' }, a.xtoken),
      await vault.call('TenantGet', { tenantid: b.id }, asA({})),
      await vault.call('TenantGet', { tenantid: 999_999 }, asA({})),
    ];
    for (const res of answers) expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { status: 'error', message: 'Access denied' } });
  });
});

describe('TenantGet, TenantUpdate, TenantListTenants', () => {
  it('shows a tenant to root and to its own admin; 404 for root on an unknown id', async ({ vault }) => {
    const t = await createTenant(vault, nameOf('g'), 'Acme Ltd');
    const expected = { status: 'ok', tenantid: t.id, tenantname: t.name, tenantorg: 'Acme Ltd', email: `admin@${t.name}.example` };
    expect((await vault.call('TenantGet', { tenantid: t.id })).body).toEqual(expected);
    expect((await vault.call('TenantGet', { tenantid: String(t.id) })).body).toEqual(expected);
    expect((await vault.call('TenantGet', {}, { 'x-bunker-token': t.xtoken })).body).toEqual(expected);
    const missing = await vault.call('TenantGet', { tenantid: 999_999 });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('The tenant record was not found');
  });

  it('lets a tenant admin rename its own tenant; the new name resolves, the old one no longer does', async ({ vault }) => {
    const t = await createTenant(vault);
    const renamed = nameOf('r');
    expect((await vault.call('TenantUpdate', { tenantname: renamed, tenantorg: 'New Org' }, { 'x-bunker-token': t.xtoken })).status).toBe(200);
    expect((await vault.call('TenantGet', { tenantid: t.id })).body).toMatchObject({ tenantname: renamed, tenantorg: 'New Org' });
    expect((await vault.call('UserGet', { mode: 'login', identity: 'x' }, { 'x-bunker-tenant': renamed })).status).toBe(404);
    expect((await vault.call('UserGet', { mode: 'login', identity: 'x' }, { 'x-bunker-tenant': t.name })).status).toBe(403);
    const other = await createTenant(vault);
    expect((await vault.call('TenantUpdate', { tenantid: t.id, tenantname: other.name })).status).toBe(409);
    expect((await vault.call('TenantUpdate', { tenantid: 999_999, tenantorg: 'x' })).status).toBe(404);
    expect((await vault.call('TenantUpdate', { tenantid: other.id, tenantorg: 'x' }, { 'x-bunker-token': t.xtoken })).status).toBe(403);
  });

  it('lists every tenant to the main tenant, paginated with a total, and refuses tenant admins', async ({ vault }) => {
    const t = await createTenant(vault);
    const all = await vault.call('TenantListTenants', { offset: 0, limit: 100 });
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThanOrEqual(2);
    expect(all.body.rows[0]).toEqual({ tenantid: 1, tenantname: 'main', tenantorg: expect.any(String) });
    expect(all.body.rows).toContainEqual({ tenantid: t.id, tenantname: t.name, tenantorg: 'Org' });
    const page = await vault.call('TenantListTenants', { offset: 1, limit: 1 });
    expect(page.body.rows).toHaveLength(1);
    expect(page.body.total).toBe(all.body.total);
    expect((await vault.call('TenantListTenants', {}, { 'x-bunker-token': t.xtoken })).status).toBe(403);
  });
});

describe('TenantDelete', () => {
  it('removes the schema, the data and every credential of the tenant', async ({ vault }) => {
    const t = await createTenant(vault);
    await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-token': t.xtoken });
    expect((await vault.call('TenantDelete', { tenantid: t.id }, { 'x-bunker-token': t.xtoken })).status).toBe(403);
    expect((await vault.call('TenantDelete', { tenantid: t.id })).status).toBe(200);
    expect(await schemaExists(vault, t.id)).toBe(false);
    const after = await vault.call('UserGet', { mode: 'login', identity: 'x' }, { 'x-bunker-token': t.xtoken });
    expect(after.status).toBe(403);
    expect((await vault.call('TenantGet', { tenantid: t.id })).status).toBe(404);
    expect((await vault.call('TenantDelete', { tenantid: t.id })).status).toBe(404);
    expect((await vault.call('TenantDelete', { tenantid: 1 })).status).toBe(400);
    // The name is free again.
    expect((await vault.call('TenantCreate', { tenantname: t.name, tenantorg: 'Again' })).status).toBe(200);
  });
});

describe('TenantGetUIConf', () => {
  it('needs no token, and answers a named tenant exactly as an unknown name: nothing to enumerate', async ({ vault }) => {
    const t = await createTenant(vault, nameOf('ui'), 'Portal Org');
    const ask = async (headers: Record<string, string>) => {
      const res = await fetch(`${vault.url}/v2/TenantGetUIConf`, { method: 'POST', headers });
      return { status: res.status, body: (await res.json()) as any };
    };
    const known = await ask({ 'x-bunker-tenant': t.name });
    expect(known.status).toBe(200);
    expect(known.body.status).toBe('ok');
    expect(known.body.ui.company_title).toBe('');
    expect(await ask({ 'x-bunker-tenant': 'nosuchtenantatall' })).toEqual(known);
    expect(await postWithHost(vault, `${t.name}.vault.example`, 'TenantGetUIConf', {})).toEqual(known);
    expect(await postWithHost(vault, 'nosuchtenantatall.vault.example', 'TenantGetUIConf', {})).toEqual(known);
    // The vault's own portal (no tenant named) shows the main tenant's organisation.
    const plain = await ask({});
    expect(plain.status).toBe(200);
    expect(plain.body.ui.company_title).not.toBe('');
  });
});

describe('the connection pool under concurrency', () => {
  it('never lets one tenant read another: 200 interleaved calls of four tenants each see only their own users', async ({ vault }) => {
    const tenants = await Promise.all([0, 1, 2, 3].map(() => createTenant(vault)));
    const users = await Promise.all(
      tenants.map(async (t) => {
        const profile = buildProfile();
        const res = await vault.call('UserCreate', { profile }, { 'x-bunker-token': t.xtoken });
        return { t, profile, token: res.body.token as string };
      }),
    );
    const calls = Array.from({ length: 200 }, (_, i) => {
      const asker = users[i % 4]!;
      const target = users[(i * 7) % 4]!;
      const write = i % 5 === 0;
      return (async () => {
        const res = write
          ? await vault.call('UserUpdate', { mode: 'token', identity: target.token, profile: { seen: i } }, { 'x-bunker-token': asker.t.xtoken })
          : await vault.call('UserGet', { mode: 'email', identity: target.profile.email }, { 'x-bunker-token': asker.t.xtoken });
        return { own: asker === target, status: res.status, body: res.body, asker, write };
      })();
    });
    for (const r of await Promise.all(calls)) {
      if (r.own) {
        expect(r.status).toBe(200);
        if (!r.write) expect(r.body.token).toBe(r.asker.token);
      } else {
        expect(r.status).toBe(404);
      }
    }
  });
});

describe('the second line of isolation (PostgreSQL)', () => {
  it('runs a tenant’s statements as a role that cannot read another tenant’s schema (none on the embedded database)', async ({ vault }) => {
    const { db } = vault.api.services;
    if (!process.env.DATABASE_URL) {
      // PGlite has one user: schema scoping is the only line there, and the vault says so by having no roles.
      expect(db.roleOf).toBeUndefined();
      expect(db.tenantPool(1)).toBeUndefined();
      return;
    }
    const a = await createTenant(vault);
    const b = await createTenant(vault);
    await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-token': a.xtoken });
    // As if the first line (schema scoping) had a bug: tenant B's pool asked for tenant A's rows.
    const query = async (tenantId: number, text: string) => {
      const pool = db.tenantPool(tenantId)!;
      const client = await pool.connect();
      try {
        return await client.query(text);
      } finally {
        pool.release(client);
      }
    };
    await expect(query(b.id, `select count(*) from "${tenantSchema(a.id)}".users`)).rejects.toMatchObject({ code: '42501' });
    await expect(query(b.id, `select count(*) from "${tenantSchema(b.id)}".users`)).resolves.toBeDefined();
    const who = await query(a.id, 'select current_user as role');
    expect(who.rows[0].role).toBe(db.roleOf!(a.id));
    // Write transactions switch to the role too: inside one, another tenant's schema is out of reach, whether the
    // statement is the first (sent with BEGIN and the role), a later one, or the last (sent with COMMIT).
    const other = `select count(*) from "${tenantSchema(a.id)}".users where token = $1`;
    const own = `select count(*) from "${tenantSchema(b.id)}".users`;
    const token = '00000000-0000-4000-8000-000000000000';
    // Each round again: the second time a connection runs a statement, it runs its kept (prepared) plan.
    for (let round = 0; round < 3; round++) {
      await expect(db.write(b.id, true, (tx) => tx.sql.query(other, [token]))).rejects.toThrow(/permission denied/);
      await expect(db.write(b.id, true, async (tx) => tx.sql.query(other, [await tx.sql.query(own).then(() => token)]))).rejects.toThrow(/permission denied/);
      await expect(db.write(b.id, true, async (tx) => (await tx.sql.query(own), tx.sql.queryThenCommit(other, [token])))).rejects.toThrow(/permission denied/);
      await expect(db.write(b.id, true, async (tx) => tx.sql.queryThenCommit(own))).resolves.toBeDefined();
      // The same statement prepared by the vault's own role runs as the tenant's role in the tenant's transactions.
      await expect(db.write(a.id, true, (tx) => tx.sql.query(other, [token]))).resolves.toBeDefined();
    }
  });
});
