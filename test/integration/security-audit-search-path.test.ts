// N14: the SECURITY DEFINER audit functions must not resolve tables through pg_temp. A temporary table named like an
// audit table, made in the caller's session, must not divert what the functions read or write, and a tenant's
// role may create no temporary table at all.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { vaultTest, type TestVault } from '../fixtures/vault.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_SWEEP_SECONDS: '0', STRONGROOM_EVENTS_DISPATCH_SECONDS: '0' } });

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);

async function tenant(vault: TestVault): Promise<number> {
  const created = await vault.call('TenantCreate', { tenantname: `sp${randomUUID().slice(0, 8)}`, tenantorg: 'SearchPath' });
  expect(created.status).toBe(200);
  return created.body.tenantid as number;
}

/** A session of its own on the vault's database (PostgreSQL only; undefined on the embedded one). */
async function session(vault: TestVault): Promise<pg.Client | undefined> {
  const url = (vault.api.services.db as unknown as { databaseUrl?: string }).databaseUrl;
  if (!url) return undefined;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

describe('the audit functions\' search path (N14)', () => {
  it('pins every SECURITY DEFINER function of a tenant to its schema, with pg_temp last', async ({ vault }) => {
    const id = await tenant(vault);
    const fns = await sql(
      vault,
      `select p.proname, p.proconfig from pg_proc p where p.pronamespace = $1::regnamespace and p.prosecdef order by p.proname`,
      [`tenant_${id}`],
    );
    expect(fns.map((f) => f.proname)).toEqual(expect.arrayContaining(['audit_append', 'audit_enqueue', 'audit_lock_head']));
    for (const f of fns) expect(f.proconfig, String(f.proname)).toEqual([`search_path=tenant_${id}, pg_temp`]);
  });

  it('reads the real head when the caller\'s session has a temporary audit_head', async ({ vault }) => {
    const id = await tenant(vault);
    const client = await session(vault);
    // The embedded database has no sessions to shadow from: the same check on the one connection.
    const run = async (text: string) => (client ? (await client.query(text)).rows : await sql(vault, text));
    try {
      await run('begin');
      await run(`create temp table audit_head (id int, seq bigint, hash bytea, digest bytea) on commit drop`);
      await run(`insert into pg_temp.audit_head values (1, 424242, '\\xdead', '\\xbeef')`);
      const [head] = await run(`select seq from tenant_${id}.audit_lock_head()`);
      const [real] = await run(`select seq from tenant_${id}.audit_head where id = 1`);
      expect(Number(head!.seq)).toBe(Number(real!.seq));
      expect(Number(head!.seq)).not.toBe(424242);
      await run('rollback');
    } finally {
      await client?.end();
    }
  });

  it('lets no tenant role create a temporary table', async ({ vault }) => {
    const id = await tenant(vault);
    const role = vault.api.services.db.roleOf?.(id);
    const client = await session(vault);
    try {
      // Without roles (the embedded database) there is no tenant role to refuse: the grant itself is what is checked.
      const [grant] = await sql(vault, `select has_database_privilege('public', current_database(), 'TEMP') as temp`);
      expect(grant!.temp).toBe(false);
      if (!client || !role) return;
      await client.query(`set role "${role}"`);
      await expect(client.query('create temp table audit_head (id int)')).rejects.toThrow(/permission denied/);
    } finally {
      await client?.end();
    }
  });
});
