// L10: an incremental AuditVerify recomputed only the public digests of the events before the last head it found
// intact, so a stored link edited there (the digests untouched) went unseen until a full run. It now also holds the
// stored links before that head to what it saw then (a running hash of them, kept in memory with the head).
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_SWEEP_SECONDS: '0' } });

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);

describe('an incremental AuditVerify and the stored links before its mark (L10)', () => {
  it('finds a link edited before the head it found intact, and is intact iff none was (generated)', async ({ vault }) => {
    const created = await vault.call('TenantCreate', { tenantname: `links${randomUUID().slice(0, 8)}`, tenantorg: 'Links' });
    const id = created.body.tenantid as number;
    const admin = { 'x-bunker-token': created.body.xtoken as string };
    for (let i = 0; i < 5; i++) expect((await vault.call('UserCreate', { profile: buildProfile() }, admin)).status).toBe(200);
    const verifier = vault.api.services.auditVerifier;
    await fc.assert(
      fc.asyncProperty(fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }), fc.constantFrom('random', 'copied'), async (edit, how) => {
        // The mark: a run that finds the trail intact (each case starts from an intact trail).
        expect((await verifier.verify(id)).result).toBe('intact');
        let saved: Buffer | undefined;
        if (edit !== undefined) {
          saved = (await sql(vault, `select hash from tenant_${id}.audit_events where seq = $1`, [edit]))[0]!.hash as Buffer;
          // A made-up link, or another event's (the one before, or after the first).
          const other = edit > 1 ? edit - 1 : edit + 1;
          const link = how === 'random' ? randomBytes(32) : ((await sql(vault, `select hash from tenant_${id}.audit_events where seq = $1`, [other]))[0]!.hash as Buffer);
          await sql(vault, `update tenant_${id}.audit_events set hash = $2 where seq = $1`, [edit, link]);
        }
        const verdict = await verifier.verify(id);
        // The oracle: intact iff no stored link was touched; else broken at the edited one.
        if (edit === undefined) expect(verdict.result).toBe('intact');
        else {
          expect(verdict).toMatchObject({ result: 'broken', broken: { seq: edit, why: 'link' } });
          await sql(vault, `update tenant_${id}.audit_events set hash = $2 where seq = $1`, [edit, saved]);
        }
      }),
      { numRuns: 8 },
    );
  });
});
