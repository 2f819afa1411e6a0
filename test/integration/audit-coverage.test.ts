// Every call leaves a trace: N mixed calls (ok, not found, refused by policy, unknown token, missing token, expired
// xtoken) leave N audit events, a refused credential's in the tenant it named or the main tenant's trail; a flood of
// refused calls is recorded up to a budget and the rest counted, never filling the disk.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';
import { roleWith } from '../fixtures/roles.js';
import { registry } from '../../api/metrics.js';

async function allEvents(vault: TestVault, headers: Record<string, string> = {}): Promise<{ title: string; status: string; msg: string | null }[]> {
  const { unlockuuid } = (await vault.call('BulkListUnlock', undefined, headers)).body;
  const rows: { title: string; status: string; msg: string | null }[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await vault.call('BulkListAllAuditEvents', { unlockuuid, offset, limit: 100 }, headers);
    rows.push(...page.body.rows);
    if (page.body.rows.length < 100) return rows;
  }
}

async function refusals(outcome: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'strongroom_audit_refusals_total');
  return (metric?.values as { value: number; labels: Record<string, string> }[] | undefined)?.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

describe('the audit trail covers every call', () => {
  it('records N events for N mixed calls, whatever their outcome', async ({ vault }) => {
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const ref = { mode: 'token', identity: user.body.token };
    const appOnly = await roleWith(vault, { Effect: 'Allow', Action: '*', Resource: 'users.appdata' });
    const expiring = await vault.call('XTokenCreateForUser', { ...ref, finaltime: '1s' });
    expect(expiring.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    // The listing calls are audited too: they are left out of both counts.
    const counted = async () => (await allEvents(vault)).filter((e) => e.title !== 'BulkListUnlock' && e.title !== 'BulkListAllAuditEvents');
    const before = (await counted()).length;
    const calls: [string, unknown, Record<string, string>, number][] = [
      ['UserGet', ref, {}, 200],
      ['UserGet', { mode: 'login', identity: 'nobody-at-all' }, {}, 404],
      ['UserGet', ref, appOnly, 403],
      ['UserGet', ref, { 'x-bunker-token': '00000000-0000-4000-8000-000000000000' }, 403],
      ['UserGet', ref, { 'x-bunker-token': '' }, 403],
      ['UserUpdate', { ...ref, profile: { a: 1 } }, { 'x-bunker-token': expiring.body.xtoken }, 403],
    ];
    for (const [op, body, headers, status] of calls) expect((await vault.call(op, body, headers)).status, op).toBe(status);
    const after = await counted();
    expect(after.length - before).toBe(calls.length);
    const refused = after.slice(0, after.length - before).filter((e) => e.msg?.startsWith('Access denied: '));
    expect(refused.map((e) => e.msg).sort()).toEqual(['Access denied: expired token', 'Access denied: missing token', 'Access denied: unknown or revoked token']);
  });

  it('puts a refusal that names no tenant into the main tenant\'s trail', async ({ vault }) => {
    const before = (await allEvents(vault)).filter((e) => e.title === 'SystemGetSystemStats' && e.msg === 'Access denied: unknown or revoked token').length;
    expect((await vault.call('SystemGetSystemStats', {}, { 'x-bunker-token': '11111111-1111-4111-8111-111111111111' })).status).toBe(403);
    const after = (await allEvents(vault)).filter((e) => e.title === 'SystemGetSystemStats' && e.msg === 'Access denied: unknown or revoked token').length;
    expect(after).toBe(before + 1);
  });

  it('records a flood of refused calls up to its budget and counts the rest', async ({ vault }) => {
    const dropped = await refusals('dropped');
    const flood = await Promise.all(Array.from({ length: 200 }, () => vault.call('UserGet', { mode: 'login', identity: 'x' }, { 'x-bunker-token': '22222222-2222-4222-8222-222222222222' })));
    expect(flood.every((r) => r.status === 403)).toBe(true);
    expect(await refusals('dropped')).toBeGreaterThan(dropped);
  });
});

describe('what a refused request leaves in clear', () => {
  it('keeps a 400’s message, which may echo the request, in the sealed details only', async ({ vault }) => {
    const { token } = (await vault.call('UserCreate', { profile: buildProfile() })).body;
    const canary = 'jane.doe.canary@example.org';
    const refused = await vault.call('UserPatch', { mode: 'token', identity: token, patch: [{ op: 'replace', path: `/contacts/${canary}`, value: 1 }] });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(canary);
    const rows = (await vault.call('AuditListUserEvents', { mode: 'token', identity: token, limit: 5 })).body.rows as { title: string; status: string; msg: string | null; auditeventuuid: string }[];
    const event = rows.find((r) => r.title === 'UserPatch' && r.status === 'error')!;
    expect(event.msg).toBe('Bad request (the message is in the event\'s sealed details)');
    const stored = await vault.api.services.db.stores(1).audit.byUuid(event.auditeventuuid);
    expect(JSON.stringify({ ...stored, details: null })).not.toContain(canary);
    const opened = (await vault.call('AuditGetEvent', { auditeventuuid: event.auditeventuuid })).body;
    expect(opened.details.message).toContain(canary);
  });
});
