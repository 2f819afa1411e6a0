// A TenantCreate refused with a retryable 503 leaves nothing behind, wherever the outage struck: before its answer
// (the tokenizer preparing the tenant's keys) or after (its audit event not written). The caller's retry with the
// same name is served, never told 409.
import { describe, expect } from 'vitest';
import { it } from '../fixtures/vault.js';
import { UnavailableError } from '../../api/errors.js';

describe('a TenantCreate refused with 503', () => {
  it('leaves no tenant, schema or credential behind, so the retry with that name is served', async ({ vault }) => {
    const { services } = vault.api;
    const failOnce = <T extends object, K extends keyof T>(target: T, key: K, when: (...args: any[]) => boolean = () => true) => {
      const original = target[key] as (...args: any[]) => Promise<unknown>;
      let failed = false;
      (target as any)[key] = function (this: unknown, ...args: any[]) {
        if (!failed && when(...args)) {
          failed = true;
          return Promise.reject(new UnavailableError('The tokenizer is unavailable'));
        }
        return original.apply(this, args);
      };
      return () => failed;
    };
    const steps = {
      'preparing its keys': () => failOnce(services.keys, 'prepareTenant'),
      'writing its audit event': () => failOnce(services.audit, 'record', (_tenant: number, event: { op?: string }) => JSON.stringify(event).includes('TenantCreate')),
    };
    for (const [step, arm] of Object.entries(steps)) {
      const name = `refused${Date.now().toString(36)}${step.length}`;
      const failed = arm();
      const refused = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Refused' });
      expect(failed(), step).toBe(true);
      expect(refused.status, `${step}: ${JSON.stringify(refused.body)}`).toBe(503);
      const listed = await vault.call('TenantListTenants', { limit: 100 });
      expect(listed.body.rows.map((t: { tenantname: string }) => t.tenantname), step).not.toContain(name);
      const retried = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Refused' });
      expect(retried.status, `${step}: ${JSON.stringify(retried.body)}`).toBe(200);
      const own = await vault.call('UserGet', { mode: 'login', identity: 'nobody' }, { 'x-bunker-token': retried.body.xtoken, 'x-bunker-tenant': name });
      expect(own.status, JSON.stringify(own.body)).toBe(404);
    }
  });
});
