// N15 (AuditVerify's part): a verification links through the tokenizer only the events after the last head it found
// intact, yet still finds an edit anywhere before it; and one runs per tenant at a time (a second call in the same
// process shares the running one's verdict; while another replica runs one, 409).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, vi } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

import { canonical } from '../../api/vault/audit/trail.js';
import { auditDigest } from '../../proto/audit-checkpoint.js';
import type { AuditEventRow } from '../../api/store/audit.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_SWEEP_SECONDS: '0' } });

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);

async function tenant(vault: TestVault) {
  const created = await vault.call('TenantCreate', { tenantname: `inc${randomUUID().slice(0, 8)}`, tenantorg: 'Incremental' });
  expect(created.status).toBe(200);
  const t = { id: created.body.tenantid as number, admin: { 'x-bunker-token': created.body.xtoken as string } };
  for (let i = 0; i < 6; i++) expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
  return t;
}

/** Counts the events the tokenizer is asked to link for verification while `work` runs. */
async function linkedDuring(vault: TestVault, work: () => Promise<unknown>): Promise<number> {
  const tokenizer = vault.api.services.tokenizer;
  const original = tokenizer.chainAudit.bind(tokenizer);
  let n = 0;
  tokenizer.chainAudit = async (tenantId, previous, firstSeq, texts) => {
    n += texts.length;
    return original(tenantId, previous, firstSeq, texts);
  };
  try {
    await work();
  } finally {
    tokenizer.chainAudit = original;
  }
  return n;
}

const headSeq = async (vault: TestVault, id: number) => Number((await sql(vault, `select seq from tenant_${id}.audit_head`))[0]!.seq);

describe('AuditVerify, incremental and one at a time (N15)', () => {
  it('links again only the events past the last head found intact', async ({ vault }) => {
    const t = await tenant(vault);
    const verifier = vault.api.services.auditVerifier;
    const first = await headSeq(vault, t.id);
    expect(await linkedDuring(vault, async () => expect((await verifier.verify(t.id)).result).toBe('intact'))).toBe(first);
    for (let i = 0; i < 3; i++) await vault.call('UserCreate', { profile: buildProfile() }, t.admin);
    const second = await headSeq(vault, t.id);
    const linked = await linkedDuring(vault, async () => expect(await verifier.verify(t.id)).toMatchObject({ result: 'intact', checked: { from: 1, to: second } }));
    expect(linked).toBe(second - first);
  });

  it('still finds an event edited before that head, its digests rewritten to match', async ({ vault }) => {
    const t = await tenant(vault);
    const verifier = vault.api.services.auditVerifier;
    expect((await verifier.verify(t.id)).result).toBe('intact');
    // A database writer edits event 3 and recomputes every public digest after it, the head's too.
    await sql(vault, `update tenant_${t.id}.audit_events set actor = 'root:someone-else' where seq = 3`);
    const rows = (await vault.api.services.db.stores(t.id).audit.after(0, 1000)) as AuditEventRow[];
    let digest: Buffer = Buffer.alloc(0);
    for (const r of rows) {
      digest = auditDigest(digest, r.seq, canonical(r));
      await sql(vault, `update tenant_${t.id}.audit_events set digest = $1 where seq = $2`, [digest, r.seq]);
    }
    await sql(vault, `update tenant_${t.id}.audit_head set digest = $1`, [digest]);
    expect(await verifier.verify(t.id)).toMatchObject({ result: 'broken', broken: { seq: 3, why: 'link' } });
  });

  it('runs at most twice for concurrent calls of one tenant, and answers 409 while another replica runs', async ({ vault }) => {
    const t = await tenant(vault);
    const head = await headSeq(vault, t.id);
    // A run reads the tokenizer's newest head once: the runs are counted by its calls.
    const runs = vi.spyOn(vault.api.services.tokenizer, 'auditHighWater');
    const linked = await linkedDuring(vault, async () => {
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => vault.call('AuditVerify', {}, t.admin)));
      for (const a of answers) expect(a.body).toMatchObject({ status: 'ok', result: 'intact' });
    });
    // The run under way, and one after it shared by the calls that came meanwhile (none is answered by a run begun
    // before it): the trail linked once, then only what came past the first run's head (the calls' own events).
    expect(runs.mock.calls.filter(([id]) => id === t.id).length).toBeLessThanOrEqual(2);
    runs.mockRestore();
    expect(linked).toBeLessThanOrEqual(head + 5);
    const url = (vault.api.services.db as unknown as { databaseUrl?: string }).databaseUrl;
    if (!url) return;
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock(hashtext($1))', [`strongroom:audit-verify:${t.id}`]);
      const refused = await vault.call('AuditVerify', {}, t.admin);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(/already running/);
    } finally {
      await other.end();
    }
    expect((await vault.call('AuditVerify', {}, t.admin)).body.result).toBe('intact');
  });
});
