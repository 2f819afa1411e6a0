// A tenant is findable by name only once it can serve: calls that name it while TenantCreate is still making its
// schema and database role are refused as for any unknown tenant name, never a 500 from a role not made yet.
import { describe, expect } from 'vitest';
import { it } from '../fixtures/vault.js';

describe('TenantCreate and calls racing it', () => {
  it('answers calls naming a tenant being created as unknown or with its answer, never 500', async ({ vault }) => {
    for (let round = 0; round < 3; round++) {
      const name = `race${Date.now().toString(36)}${round}`;
      let created = false;
      // A 503 is the contract's retryable answer (a loaded CI machine can take a tokenizer call past its deadline):
      // the caller retries with the same name, and a refused TenantCreate must have left nothing behind (no 409).
      const create = (async () => {
        for (;;) {
          const res = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Race' });
          if (res.status !== 503) return res;
          console.warn(`TenantCreate answered 503 (${JSON.stringify(res.body)}): retried`);
        }
      })().then((r) => {
        created = true;
        return r;
      });
      const statuses = new Set<number>();
      while (!created) {
        const res = await vault.call('UserGet', { mode: 'login', identity: 'nobody' }, { 'x-bunker-token': vault.rootToken, 'x-bunker-tenant': name });
        statuses.add(res.status);
        expect(res.status, JSON.stringify(res.body)).not.toBe(500);
      }
      const done = await create;
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      // 403 while no tenant has that name (as for any unknown name), 404 (no such person) once it serves.
      expect([...statuses].filter((s) => s !== 403 && s !== 404)).toEqual([]);
      const after = await vault.call('UserGet', { mode: 'login', identity: 'nobody' }, { 'x-bunker-token': vault.rootToken, 'x-bunker-tenant': name });
      expect(after.status).toBe(404);
      expect(after.body.message).toMatch(/user record was not found/i);
    }
  });
});
