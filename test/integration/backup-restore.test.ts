// Backup and restore end to end, as docs/operations.md tells an operator: populate a vault, pg_dump its database,
// destroy it, restore into a fresh PostgreSQL cluster (initdb here, without the vault's per-tenant roles), start the
// vault on it with the same data directory (the keyring), read everything back and verify the audit chain.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { spawnTokenizer } from '../fixtures/tokenizer.js';
import { createTestDatabase, usingPostgres } from '../fixtures/database.js';
import { apiTestEnv, buildProfile } from '../fixtures/vault.js';
import { startApi } from '../../api/compose.js';
import { initKeyring } from '../../tokenizer/keyring-init.js';

type Api = Awaited<ReturnType<typeof startApi>>;

async function call(api: Api, rootToken: string, op: string, body: unknown = {}) {
  const res = await fetch(`http://127.0.0.1:${api.port}/v2/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bunker-token': rootToken },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** The client and server programs of the server's own major version (pg_dump refuses a newer server). */
async function binDir(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ v: string }>("select current_setting('server_version_num') as v");
    return `/usr/lib/postgresql/${Math.floor(Number(rows[0]!.v) / 10000)}/bin`;
  } finally {
    await c.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** A fresh, empty cluster in a temp dir: initdb, trust auth, loopback on a free port, its socket in the dir. */
async function freshCluster(bin: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sr-restore-'));
  // initdb and postgres refuse to run as root: as the postgres user then, which must own the directory.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const run = (program: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(bin, program), asRoot ? ['-u', 'postgres', '--', join(bin, program), ...args] : args, { stdio: 'pipe' });
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
  return {
    port,
    async stop() {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.skipIf(!usingPostgres())('backup and restore (PostgreSQL only: the embedded database is backed up with its data directory)', () => {
  it('restores a pg_dump into an empty cluster: every record reads back and the audit chain is intact', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const socketPath = join(dataDir, 'run', 'tokenizer.sock');
    await initKeyring({ dataDir, wrappingKey: undefined, socketPath }, { recipients: [], outDir: dataDir, print: true, replace: false, show: () => {}, notice: () => {} });
    const tokenizer = await spawnTokenizer({ dataDir });
    const rootToken = randomUUID();
    const source = await createTestDatabase();
    const bin = await binDir(source.url!);
    const dumpFile = join(dataDir, 'vault.dump');
    let cluster: Awaited<ReturnType<typeof freshCluster>> | undefined;
    let api: Api | undefined;
    try {
      // Populate: people, app data, a file, a token, and the audit events all of these leave.
      api = await startApi(apiTestEnv({ dataDir, rootToken, socketPath, databaseUrl: source.url }));
      const people = [];
      for (let i = 0; i < 3; i++) {
        const profile = buildProfile();
        const made = await call(api, rootToken, 'UserCreate', { profile });
        expect(made.status).toBe(200);
        const ref = { mode: 'token', identity: made.body.token as string };
        expect((await call(api, rootToken, 'AppdataCreate', { ...ref, appname: 'prefs', appdata: { n: i } })).status).toBe(200);
        const file = await call(api, rootToken, 'FileCreate', { ...ref, filename: `f${i}.txt`, filedata: Buffer.from(`file ${i}`).toString('base64') });
        expect(file.status).toBe(200);
        people.push({ profile, ref, i, fileuuid: file.body.fileuuid as string });
      }
      const token = await call(api, rootToken, 'TokenCreate', { tokentype: 'email', record: 'restore@example.com' });
      expect(token.status).toBe(200);
      await api.services.audit.drainIfQueued(1);
      await api.services.auditCheckpoints.checkpoint(1);
      const eventsBefore = (await call(api, rootToken, 'AuditListUserEvents', { ...people[0]!.ref })).body;
      await api.close();
      api = undefined;

      // Back up, destroy (the database and its tenant roles), restore into a cluster that never saw those roles.
      const dbName = new URL(source.url!).pathname.slice(1);
      execFileSync(join(bin, 'pg_dump'), ['-Fc', '-f', dumpFile, source.url!], { stdio: 'pipe' });
      await source.drop();
      cluster = await freshCluster(bin);
      const target = `postgres://postgres@127.0.0.1:${cluster.port}/${dbName}`;
      execFileSync(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', dbName], { stdio: 'pipe' });
      const restore = (() => {
        try {
          execFileSync(join(bin, 'pg_restore'), ['--no-owner', '--no-acl', '-d', target, dumpFile], { stdio: 'pipe' });
          return '';
        } catch (err) {
          return String((err as { stderr?: Buffer }).stderr ?? err);
        }
      })();
      // The only statements that fail are the row policies naming the missing tenant roles: the vault makes them again.
      const errors = restore.split('\n').filter((l) => /^pg_restore: error:/.test(l));
      for (const line of errors) expect(line).toMatch(/role "sr_[0-9a-f]{10}_t\d+" does not exist/);

      // Start on the restored database with the same data directory, and read everything back.
      api = await startApi(apiTestEnv({ dataDir, rootToken, socketPath, databaseUrl: target }));
      for (const p of people) {
        expect((await call(api, rootToken, 'UserGet', p.ref)).body.profile).toEqual(p.profile);
        expect((await call(api, rootToken, 'AppdataGet', { ...p.ref, appname: 'prefs' })).body.appdata).toEqual({ n: p.i });
        const file = await call(api, rootToken, 'FileGet', { ...p.ref, fileuuid: p.fileuuid });
        expect(Buffer.from(file.body.filedata as string, 'base64').toString()).toBe(`file ${p.i}`);
      }
      expect((await call(api, rootToken, 'TokenGet', { token: token.body.tokenuuid })).body.record).toBe('restore@example.com');
      expect((await call(api, rootToken, 'AuditListUserEvents', { ...people[0]!.ref })).body.rows).toEqual(expect.arrayContaining(eventsBefore.rows as unknown[]));
      const verdict = await call(api, rootToken, 'AuditVerify', {});
      expect(verdict.body.result).toBe('intact');
      // The roles came back, and the tenant's statements run as its role again (a write goes through it).
      expect((await call(api, rootToken, 'UserCreate', { profile: buildProfile() })).status).toBe(200);
      const c = new pg.Client({ connectionString: target });
      await c.connect();
      try {
        const roles = await c.query(`select rolname from pg_roles where rolname like 'sr\\_%\\_t1'`);
        expect(roles.rowCount).toBe(1);
        // A restore without ACLs gave functions back to PUBLIC: the vault revoked that again.
        const open = await c.query(`select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where n.nspname not in ('pg_catalog', 'information_schema') and has_function_privilege('public', p.oid, 'execute')
            and n.nspname = 'tenant_1'`);
        expect(open.rows).toEqual([]);
        expect((await c.query(`select has_database_privilege('public', current_database(), 'temporary') as t`)).rows[0].t).toBe(false);
      } finally {
        await c.end();
      }
    } finally {
      await api?.close();
      await tokenizer.stop();
      await source.drop();
      await cluster?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
