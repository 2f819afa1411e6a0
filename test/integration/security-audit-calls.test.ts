// M8: calls that left no trace. A body that is not JSON, sent with a valid token: the caller is known, so its refusal
// is an event on the tenant's trail like any other failed authenticated call. A public call that fails (UserPrelogin
// without a parameter) has no caller to name: it is counted, as a failed UserLogin is, and leaves no event.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, type TestVault } from '../fixtures/vault.js';

import { registry } from '../../api/metrics.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0' } });

const events = async (vault: TestVault, id: number) =>
  (await vault.api.services.db.global().sql.query(`select title, status, msg, actor from tenant_${id}.audit_events order by seq`, [])) as { title: string; status: string; msg: string | null; actor: string }[];

async function send(vault: TestVault, op: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

async function clientErrors(op: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'strongroom_api_operation_duration_seconds');
  const values = (metric?.values ?? []) as { value: number; labels: Record<string, string>; metricName?: string }[];
  return values.find((v) => v.metricName?.endsWith('_count') && v.labels.operation === op && v.labels.status === 'client_error')?.value ?? 0;
}

describe('calls that failed before their operation ran (M8)', () => {
  it('puts a malformed body of a known caller on the tenant\'s trail, whatever the bytes (generated)', async ({ vault }) => {
    const created = await vault.call('TenantCreate', { tenantname: `body${randomUUID().slice(0, 8)}`, tenantorg: 'Body' });
    const id = created.body.tenantid as number;
    const admin = { 'x-bunker-token': created.body.xtoken as string };
    // Bodies that are not a JSON object: broken JSON, a bare value, an array.
    const bad = fc.oneof(
      fc.constantFrom('{"profile":', '{', 'not json', '{"a":1,}', '[1,2]', '"text"', '42'),
      fc.string({ minLength: 1, maxLength: 40 }).filter((s) => {
        try {
          const v: unknown = JSON.parse(s);
          return typeof v !== 'object' || v === null || Array.isArray(v);
        } catch {
          return true;
        }
      }),
    );
    await fc.assert(
      fc.asyncProperty(bad, fc.constantFrom('UserCreate', 'UserGet'), async (body, op) => {
        const before = (await events(vault, id)).length;
        const answer = await send(vault, op, body, admin);
        expect(answer.status, body).toBe(400);
        const after = await events(vault, id);
        // The oracle: exactly one more event, the refusal of this call, by this caller.
        expect(after.length, body).toBe(before + 1);
        expect(after.at(-1), body).toMatchObject({ title: op, status: 'error' });
        expect(after.at(-1)!.actor).toMatch(/^tenant-admin:/);
      }),
      { numRuns: 15 },
    );
  });

  it('counts a UserPrelogin missing a parameter, and leaves no event', async ({ vault }) => {
    const before = await clientErrors('UserPrelogin');
    const main = (await events(vault, 1)).length;
    const answer = await send(vault, 'UserPrelogin', JSON.stringify({ mode: 'email', identity: 'a@example.com' }), {});
    expect(answer.status).toBe(400);
    expect(String(answer.body.message)).toMatch(/code|captchacode/);
    expect(await clientErrors('UserPrelogin')).toBe(before + 1);
    expect((await events(vault, 1)).length).toBe(main);
  });
});
