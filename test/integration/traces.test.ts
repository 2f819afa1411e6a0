// Traces: a vault exporting to an OTLP/HTTP receiver (test/fixtures/otlp-receiver.ts) at 100 % sampling, driven
// through a broad set of calls carrying canaries (unique strings in every personal field, the tokens, the xtoken).
// Nothing exported may hold a canary; the span tree must be there: the HTTP request, its operation, the tokenizer
// calls and, in the same trace, the tokenizer's own spans as their children (the context carried in a unary call's
// gRPC metadata, or in a Run stream batch's message), and the statements. The vault is stopped before the spans are read: both processes flush on a graceful stop.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startVault, type TestVault } from '../fixtures/vault.js';
import { startOtlpReceiver, type ReceivedSpan } from '../fixtures/otlp-receiver.js';
import { ALLOWED_ATTRIBUTES } from '../../proto/trace-attributes.js';

const SERVER = 2;

/** The calls, each with canaries: a person made, read by every index, changed, their app data, a token, an xtoken. */
async function drive(vault: TestVault, canary: (what: string) => string): Promise<string[]> {
  const phone = `+1555${String(Number.parseInt(randomBytes(3).toString('hex'), 16) % 1e7).padStart(7, '0')}`;
  const profile = { login: canary('login'), email: `${canary('email')}@example.com`, phone, custom: canary('custom'), name: canary('name'), note: canary('field') };
  const metadata = { request_metadata: { reason: canary('metadata') } };
  const ok = async (op: string, body: unknown, headers?: Record<string, string>) => {
    const answer = await vault.call(op, body, headers);
    expect(answer.status, `${op}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body;
  };
  const { token } = await ok('UserCreate', { profile, ...metadata });
  for (const [mode, identity] of [['login', profile.login], ['email', profile.email], ['phone', phone], ['custom', profile.custom], ['token', token]]) {
    await ok('UserGet', { mode, identity, ...metadata });
  }
  await ok('UserUpdate', { mode: 'email', identity: profile.email, profile: { note: canary('update') }, ...metadata });
  await ok('AppdataCreate', { mode: 'login', identity: profile.login, appname: 'shop', appdata: { secret: canary('appdata') } });
  await ok('AppdataGet', { mode: 'login', identity: profile.login, appname: 'shop' });
  const tokenValue = canary('tokenvalue');
  const { tokenuuid } = await ok('TokenCreate', { tokentype: 'text', record: tokenValue });
  await ok('TokenGet', { token: tokenuuid });
  const { xtoken } = await ok('XTokenCreateForUser', { mode: 'token', identity: token });
  await ok('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': xtoken });
  // A unary tokenizer call (KeyringInfo), whose trace context rides in its gRPC metadata.
  await ok('SystemGetKeyringStatus', {});
  // Refusals whose messages could echo what was sent.
  expect((await vault.call('UserGet', { mode: 'email', identity: `${canary('missing')}@example.com` })).status).toBe(404);
  expect((await vault.call('UserGet', { mode: canary('mode'), identity: canary('badidentity') })).status).toBe(400);
  expect((await vault.call(canary('Op'), {})).status).toBe(404);
  // A v1 path holds the identity itself.
  const v1 = await fetch(`${vault.url}/v1/userapp/email/${profile.email}/shop?q=${canary('query')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bunker-token': vault.rootToken },
    body: JSON.stringify({ v1: canary('v1body') }),
  });
  expect(v1.status).toBe(200);
  return [token, tokenuuid, xtoken, phone.slice(1), vault.rootToken];
}

function childrenOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);
}

function descendantsOf(spans: ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (let next = childrenOf(spans, root); next.length; next = next.flatMap((s) => childrenOf(spans, s))) out.push(...next);
  return out;
}

describe('traces', () => {
  it('export the request, operation, tokenizer and statement spans, and no personal data', { timeout: 120_000 }, async ({ onTestFinished }) => {
    const receiver = await startOtlpReceiver();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' };
    const vault = await startVault({ env: otel, tokenizerEnv: otel });
    let running = true;
    onTestFinished(async () => {
      if (running) await vault.stop();
      await receiver.close();
    });
    const run = randomBytes(6).toString('hex');
    const canaries: string[] = [];
    const canary = (what: string) => {
      const value = `cnry${what}${run}`;
      canaries.push(value);
      return value;
    };
    canaries.push(...(await drive(vault, canary)));
    await vault.stop();
    running = false;

    const spans = receiver.spans();
    // (1) No canary anywhere: names, attributes, events, status, resource.
    const exported = receiver.bodies().join('\n');
    expect(exported.length).toBeGreaterThan(1000);
    for (const value of canaries) expect(exported, value).not.toContain(value);
    expect(exported).not.toContain(`cnry`);
    for (const span of spans) expect(Object.keys(span.attributes).filter((k) => !ALLOWED_ATTRIBUTES.has(k)), span.name).toEqual([]);

    // (2) The tree: request → operation → tokenizer call → the tokenizer's span for it; statements under the request.
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['strongroom-api', 'strongroom-tokenizer']));
    const request = spans.find((s) => s.name === 'POST /v2/UserCreate' && s.service === 'strongroom-api');
    expect(request, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(request!.parentSpanId).toBe('');
    expect(request!.kind).toBe(SERVER);
    expect(request!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v2/UserCreate', 'http.response.status_code': 200 });
    const op = childrenOf(spans, request!).find((s) => s.name === 'op UserCreate');
    expect(op?.attributes).toMatchObject({ 'strongroom.operation': 'UserCreate', 'strongroom.outcome': 'ok', 'strongroom.tenant_id': 1 });
    const below = descendantsOf(spans, op!);
    const calls = below.filter((s) => s.service === 'strongroom-api' && s.name.startsWith('tokenizer '));
    expect(calls.length).toBeGreaterThan(0);
    const served = calls.flatMap((call) => childrenOf(spans, call)).filter((s) => s.service === 'strongroom-tokenizer');
    expect(served.map((s) => s.name)).toContain('serve Run');
    for (const s of served) expect(s.traceId).toBe(request!.traceId);
    expect(below.filter((s) => s.attributes['db.system.name'] === 'postgresql').length).toBeGreaterThan(0);
    expect(below.map((s) => s.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^(insert|select|with) [a-z_]+$/)]));

    // A unary call's context came in its gRPC metadata; a batch's on the Run stream, in its message.
    const keyring = spans.find((s) => s.name === 'tokenizer KeyringInfo');
    expect(childrenOf(spans, keyring!).map((s) => `${s.service} ${s.name}`)).toEqual(['strongroom-tokenizer serve KeyringInfo']);

    // The v1 path is named by its template; a refusal is an outcome of the operation, not a message.
    expect(spans.map((s) => s.name)).toContain('POST /v1/userapp/:mode/:identity/:appname');
    const missing = spans.find((s) => s.name === 'op UserGet' && s.attributes['strongroom.status_code'] === 404);
    expect(missing?.attributes['strongroom.outcome']).toBe('client_error');
  });
});
