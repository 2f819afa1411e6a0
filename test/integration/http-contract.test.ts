// The transport rules every operation shares: envelopes, authentication, tenant selection, limits, metrics.
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const it = vaultTest({ env: { STRONGROOM_BODY_LIMIT: '64kb' } });

async function raw(vault: TestVault, path: string, init: RequestInit = {}) {
  const res = await fetch(`${vault.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) as Record<string, any> };
}

describe('envelope', () => {
  it('answers an unknown operation with 404 in JSON', async ({ vault }) => {
    const res = await vault.call('UserTeleport', {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', message: 'The API request was not found' });
    const lower = await vault.call('userget', {});
    expect(lower.status).toBe(404);
  });

  it('answers unknown paths outside /v2 in JSON too', async ({ vault }) => {
    const res = await raw(vault, '/nowhere');
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ status: 'error', message: 'endpoint is missing' });
  });

  it('turns malformed JSON into a 400 that does not echo the body', async ({ vault }) => {
    const res = await raw(vault, '/v2/UserCreate', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bunker-token': vault.rootToken },
      body: '{"profile": {"ssn": "078-05-1120"',
    });
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/application\/json/);
    expect(res.json()).toEqual({ status: 'error', message: 'Failed to decode the request body' });
    expect(res.text).not.toMatch(/078-05/);
  });

  it('refuses a JSON body that is not an object', async ({ vault }) => {
    for (const body of ['[1,2]', '"text"', '42']) {
      const res = await vault.call('UserCreate', body);
      expect(res.status, body).toBe(400);
      expect(res.body.status).toBe('error');
    }
  });

  it('answers a body over the limit with 413 in JSON', async ({ vault }) => {
    const res = await vault.call('UserCreate', { profile: { blob: 'x'.repeat(100 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: 'error', message: 'The request body is too large' });
  });

  it('ignores unknown fields, naming them in warnings', async ({ vault }) => {
    const res = await vault.call('UserCreate', { profile: buildProfile(), colour: 'blue', description: 'alias' });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual(['unknown field "colour" ignored', 'unknown field "description" ignored']);
  });

  it('refuses request_metadata that is not an object', async ({ vault }) => {
    const res = await vault.call('UserCreate', { profile: buildProfile(), request_metadata: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/request_metadata/);
  });
});

describe('authentication and tenant selection', () => {
  it('answers 403 for a missing token (saying so) or a wrong one (Access denied)', async ({ vault }) => {
    const none = await vault.call('UserGet', { mode: 'login', identity: 'x' }, { 'x-bunker-token': '' });
    expect(none.status).toBe(403);
    expect(none.body).toEqual({ status: 'error', message: 'missing X-Bunker-Token header' });
    const wrong = await vault.call('UserGet', { mode: 'login', identity: 'x' }, { 'x-bunker-token': crypto.randomUUID() });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ status: 'error', message: 'Access denied' });
  });

  it('accepts the main tenant by name, and refuses a tenant that does not exist with the same 403', async ({ vault }) => {
    const main = await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-tenant': 'main' });
    expect(main.status).toBe(200);
    const other = await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-tenant': 'acme' });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ status: 'error', message: 'Access denied' });
  });

  it('ignores a subdomain that names no tenant', async ({ vault }) => {
    const res = await vault.call('UserCreate', { profile: buildProfile() }, { host: `nosuch.localhost:${new URL(vault.url).port}` });
    expect(res.status).toBe(200);
  });
});

describe('health and metrics', () => {
  it('reports alive and ready', async ({ vault }) => {
    expect((await raw(vault, '/healthz')).status).toBe(200);
    const ready = await raw(vault, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', database: 'ok', tokenizer: 'ok', keyring: 'ok' });
  });

  it('exposes http_requests_total by route template and per-operation durations', async ({ vault }) => {
    await vault.call('UserGet', { mode: 'login', identity: 'metrics-probe' });
    await vault.call('NoSuchOp', {});
    const res = await raw(vault, '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/http_requests_total\{method="POST",path="\/v2\/UserGet",status="404"\} \d+/);
    expect(res.text).toMatch(/http_requests_total\{method="POST",path="\/v2\/:op",status="404"\} \d+/);
    expect(res.text).toMatch(/strongroom_api_operation_duration_seconds_bucket\{le="[^"]+",operation="UserGet",status="client_error"\}/);
    expect(res.text).toMatch(/strongroom_api_tokenizer_call_duration_seconds_count\{method="Run",code="OK"\}/);
    expect(res.text).toMatch(/strongroom_api_db_pool_connections\{state="total"\} [1-9]/);
    expect(res.text).not.toMatch(/metrics-probe/);
  });
});
