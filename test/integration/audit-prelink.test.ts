// A read's link made in the tokenizer message that seals its details and opens its profile (api/vault/audit/
// prelink.ts): a lone read on an idle trail makes no link call of its own, and whatever happens around it (reads and
// writes in parallel, a read that fails after its link was made, the head moved by another batch while the read's
// message is out) the trail holds every call's event exactly once and verifies intact. The oracle is the count of
// calls made and AuditVerify's recomputation of every link with the key; the tokenizer's calls are counted where the
// api makes them.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect, vi } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import type { AuditRun, TokenizerBatch } from '../../api/tokenizer-client.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0' } });

const sql = (vault: TestVault, text: string) => vault.api.services.db.global().sql.query(text, []);
const eventsOf = async (vault: TestVault, id: number) => Number((await sql(vault, `select count(*)::int as n from tenant_${id}.audit_events`))[0]!.n);
const linksAhead = (b: TokenizerBatch) => (b.chain ?? []).some((c) => c.detailsSealedAs?.some(Boolean));

type Step =
  | { kind: 'get'; who: number }
  | { kind: 'missingVersion'; who: number }
  | { kind: 'update'; who: number }
  | { kind: 'parallel'; gets: number; updates: number }
  | { kind: 'headMovedMeanwhile'; who: number };

const who = fc.integer({ min: 0, max: 2 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('get' as const), who }),
  fc.record({ kind: fc.constant('missingVersion' as const), who }),
  fc.record({ kind: fc.constant('update' as const), who }),
  fc.record({ kind: fc.constant('parallel' as const), gets: fc.integer({ min: 1, max: 6 }), updates: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('headMovedMeanwhile' as const), who }),
);

it("links a lone read in its open's message; the trail keeps every call's event once, whatever happens around it (generated)", async ({ vault }) => {
  const created = await vault.call('TenantCreate', { tenantname: `pre${randomUUID().slice(0, 8)}`, tenantorg: 'Prelink' });
  expect(created.status).toBe(200);
  const id = created.body.tenantid as number;
  const admin = { 'x-bunker-token': created.body.xtoken as string };
  const emails: string[] = [];
  for (let i = 0; i < 3; i++) {
    const profile = buildProfile();
    expect((await vault.call('UserCreate', { profile }, admin)).status).toBe(200);
    emails.push(profile.email as string);
  }
  const get = (i: number, extra: Record<string, unknown> = {}) => vault.call('UserGet', { mode: 'email', identity: emails[i], ...extra }, admin);
  const update = (i: number) => vault.call('UserUpdate', { mode: 'email', identity: emails[i], profile: { note: randomUUID() } }, admin);

  const tokenizer = vault.api.services.tokenizer;
  const run = tokenizer.run.bind(tokenizer);
  let moveHead: (() => Promise<unknown>) | undefined;
  let ahead = 0;
  let moved = 0;
  const runs = vi.spyOn(tokenizer, 'run').mockImplementation(async (tenantId: number, batch: TokenizerBatch) => {
    if (tenantId === id && linksAhead(batch)) {
      ahead++;
      // Another batch of the tenant appends while this read's message is out: its link no longer holds.
      const move = moveHead;
      moveHead = undefined;
      if (move) {
        await move();
        moved++;
      }
    }
    return run(tenantId, batch);
  });
  const linkCalls: AuditRun[] = [];
  const chainInRun = tokenizer.chainInRun.bind(tokenizer);
  vi.spyOn(tokenizer, 'chainInRun').mockImplementation(async (tenantId: number, r: AuditRun, alone?: boolean) => {
    if (tenantId === id && r.canonical.length) linkCalls.push(r);
    return chainInRun(tenantId, r, alone);
  });
  try {
    // Lone reads on an idle trail: each links in its own message, and no link call is made for it. (The chainer's
    // report of its committed head, 20 ms after a batch, is a message of its own that a read does not wait behind;
    // the batch before may still be finishing at a read's start: that read is not alone.)
    const [before, calls] = [ahead, linkCalls.length];
    for (let i = 0; i < 10; i++) expect((await get(i % 3)).status).toBe(200);
    expect(ahead - before).toBeGreaterThanOrEqual(8);
    expect(linkCalls.length - calls).toBe(10 - (ahead - before));

    // A read whose link was made from a head another batch moved before it was appended: linked again.
    const headMovedMeanwhile = async (i: number) => {
      moveHead = () => update((i + 1) % 3);
      expect((await get(i)).status).toBe(200);
      // The read was not alone (its link not made ahead): the update goes after it.
      const left = moveHead;
      moveHead = undefined;
      if (left) await left();
    };
    for (let i = 0; i < 5 && !moved; i++) await headMovedMeanwhile(i % 3);
    expect(moved).toBe(1);
    expect(await vault.api.services.auditVerifier.verify(id)).toMatchObject({ result: 'intact' });

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const start = await eventsOf(vault, id);
        let made = 0;
        for (const s of steps) {
          if (s.kind === 'get') expect((await get(s.who)).status).toBe(200);
          if (s.kind === 'missingVersion') expect((await get(s.who, { version: 999 })).status).toBe(404);
          if (s.kind === 'update') expect((await update(s.who)).status).toBe(200);
          if (s.kind === 'parallel') {
            const answers = await Promise.all([...Array.from({ length: s.gets }, (_, k) => get(k % 3)), ...Array.from({ length: s.updates }, (_, k) => update(k % 3))]);
            expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
          }
          if (s.kind === 'headMovedMeanwhile') await headMovedMeanwhile(s.who);
          made += s.kind === 'parallel' ? s.gets + s.updates : s.kind === 'headMovedMeanwhile' ? 2 : 1;
        }
        // Each call's event once: nothing lost, nothing appended twice.
        expect(await eventsOf(vault, id)).toBe(start + made);
        const verdict = await vault.api.services.auditVerifier.verify(id);
        expect(verdict.result).toBe('intact');
      }),
      { numRuns: 12 },
    );
    expect(runs).toHaveBeenCalled();
  } finally {
    vi.restoreAllMocks();
  }
}, 180_000);
