// The privacy event sinks against real receivers: an HTTP server on 127.0.0.1 that checks every delivery with the
// standardwebhooks library, and the machine's NATS JetStream (127.0.0.1:4222, started by .ci/run). No vault needed.
import * as http from 'node:http';
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudEvent, HTTP } from 'cloudevents';
import { Webhook } from 'standardwebhooks';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { Outgoing } from '../../api/vault/privacy/sink.js';
import { checkTarget, guardedLookup, parseAllowList, type Resolve } from '../../api/vault/privacy/ssrf.js';
import { newWebhookSecret, WebhookSink, type WebhookOptions } from '../../api/vault/privacy/webhook.js';
import { NatsBroker } from '../../api/vault/privacy/nats.js';

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An HTTP server on 127.0.0.1, port 0, that records what it is sent and answers as `answer` says. */
async function receiver(answer: (seen: Seen, res: http.ServerResponse) => void = (_s, res) => res.writeHead(204).end()) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const one = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(one);
      answer(one, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** A CloudEvent in structured mode, as the dispatcher hands it over. */
function event(data: Record<string, unknown> = {}): Outgoing {
  const id = crypto.randomUUID();
  const ce = new CloudEvent({ id, type: 'dev.strongroom.person.erased', source: '/strongroom/test', data });
  return { id, body: HTTP.structured(ce).body as string, time: Math.floor(Date.now() / 1000) };
}

const local = parseAllowList('127.0.0.1/32');
const none = parseAllowList('');

function sink(url: string, overrides: Partial<WebhookOptions> = {}) {
  return new WebhookSink({ url, secrets: [newWebhookSecret()], allow: local, timeoutMs: 10_000, maxResponseBytes: 65_536, ...overrides });
}

describe('WebhookSink', () => {
  it('delivers each event as a signed CloudEvent the standardwebhooks library verifies', async () => {
    const secret = newWebhookSecret();
    const verifier = new Webhook(secret);
    const target = await receiver((seen, res) => {
      try {
        verifier.verify(seen.body, seen.headers as Record<string, string>);
        res.writeHead(200).end('thanks');
      } catch {
        res.writeHead(401).end();
      }
    });
    const webhooks = sink(target.url, { secrets: [secret], concurrency: 4 });
    const events = Array.from({ length: 40 }, (_, n) => event({ n }));
    const results = await webhooks.deliver(events);
    expect(results).toEqual(events.map(() => ({ ok: true, status: 200 })));
    expect(target.seen.map((s) => s.headers['webhook-id']).sort()).toEqual(events.map((e) => e.id).sort());
    for (const seen of target.seen) {
      expect(seen.headers['content-type']).toBe('application/cloudevents+json; charset=utf-8');
      expect(seen.body).toBe(events.find((e) => e.id === seen.headers['webhook-id'])!.body);
      expect(HTTP.toEvent({ headers: seen.headers, body: seen.body })).toMatchObject({ specversion: '1.0', type: 'dev.strongroom.person.erased' });
    }
    await webhooks.close();
    await target.close();
  });

  it('signs with both secrets during a rotation, each verifying on its own', async () => {
    const [old, next] = [newWebhookSecret(), newWebhookSecret()];
    const target = await receiver();
    const webhooks = sink(target.url, { secrets: [old, next] });
    expect(await webhooks.deliver([event()])).toEqual([{ ok: true, status: 204 }]);
    const [seen] = target.seen;
    expect(String(seen!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, next]) expect(() => new Webhook(secret).verify(seen!.body, seen!.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(seen!.body, seen!.headers as Record<string, string>)).toThrow('No matching signature');
    await webhooks.close();
    await target.close();
  });

  it('answers each event in order, a failed one with its status, and never throws', async () => {
    const target = await receiver((seen, res) => {
      const { data } = JSON.parse(seen.body) as { data: { status: number; reply?: string } };
      res.writeHead(data.status).end(data.reply ?? '');
    });
    const webhooks = sink(target.url);
    const events = [event({ status: 500 }), event({ status: 200 }), event({ status: 410 }), event({ status: 200, reply: '{"erased":true}' }),
      event({ status: 202, reply: '{"erased":"yes"}' }), event({ status: 200, reply: 'not json' })];
    expect(await webhooks.deliver(events)).toEqual([
      { ok: false, status: 500, retry: true, error: 'HTTP 500' },
      { ok: true, status: 200 },
      { ok: false, status: 410, retry: true, error: 'HTTP 410' },
      { ok: true, status: 200, erased: true },
      { ok: true, status: 202 },
      { ok: true, status: 200 },
    ]);
    await webhooks.close();
    expect(await webhooks.deliver([event()])).toEqual([{ ok: false, retry: true, error: 'sink closed' }]);
    await target.close();
  });

  it('does not follow a redirect', async () => {
    const elsewhere = await receiver();
    const target = await receiver((_s, res) => res.writeHead(302, { location: elsewhere.url }).end());
    const webhooks = sink(target.url);
    expect(await webhooks.deliver([event()])).toEqual([{ ok: false, status: 302, retry: true, error: 'redirect not followed (HTTP 302)' }]);
    expect(target.seen).toHaveLength(1);
    expect(elsewhere.seen).toHaveLength(0);
    await webhooks.close();
    await Promise.all([target.close(), elsewhere.close()]);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const target = await receiver(() => {}); // never answers
    const webhooks = sink(target.url, { timeoutMs: 300 });
    expect(await webhooks.deliver([event()])).toEqual([{ ok: false, retry: true, error: 'timed out after 300 ms' }]);
    await webhooks.close();
    await target.close();
  });

  it('stops reading an answer larger than the limit', async () => {
    const target = await receiver((_s, res) => res.writeHead(200).end(Buffer.alloc(1 << 20, 'x')));
    const webhooks = sink(target.url, { maxResponseBytes: 65_536 });
    expect(await webhooks.deliver([event()])).toEqual([{ ok: false, status: 200, retry: true, error: 'response larger than 65536 bytes' }]);
    await webhooks.close();
    await target.close();
  });
});

describe('the SSRF guard on deliveries', () => {
  it('refuses loopback, private, link-local and mapped targets, at subscription and at delivery', async () => {
    const target = await receiver();
    const p = target.port;
    const urls = [`http://127.0.0.1:${p}/`, 'http://169.254.169.254/', 'http://10.0.0.1/', `http://[::1]:${p}/`, `http://[::ffff:127.0.0.1]:${p}/`, `http://localhost:${p}/`];
    for (const url of urls) {
      expect(await checkTarget(url, none), url).toMatch(/^address .* is not allowed$/);
      const webhooks = sink(url, { allow: none });
      const [result] = await webhooks.deliver([event()]);
      expect(result, url).toMatchObject({ ok: false, retry: true, error: expect.stringMatching(/^address .* is not allowed$/) });
      await webhooks.close();
    }
    expect(target.seen).toHaveLength(0);
    // The same receiver is reached through each local spelling once the allow list names it.
    for (const url of [`http://127.0.0.1:${p}/`, `http://[::ffff:127.0.0.1]:${p}/`, `http://localhost:${p}/`]) {
      const allowed = parseAllowList('127.0.0.1/32,::1/128');
      expect(await checkTarget(url, allowed), url).toBeUndefined();
      const webhooks = sink(url, { allow: allowed });
      expect(await webhooks.deliver([event()]), url).toEqual([{ ok: true, status: 204 }]);
      await webhooks.close();
    }
    expect(target.seen).toHaveLength(3);
    await target.close();
  });

  it('refuses at connect time a name whose answer turned to loopback after the check', async () => {
    const target = await receiver();
    /** Answers a public address the first time, 127.0.0.1 afterwards (DNS rebinding). */
    const flipping = (): Resolve => {
      let asked = 0;
      return (_host, _options, callback) => callback(null, [{ address: asked++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }]);
    };
    const post = (lookup: ReturnType<typeof guardedLookup>) =>
      new Promise<string>((done) => {
        const req = http.request({ host: 'rebind.example', port: target.port, method: 'POST', agent: false, lookup }, (res) => {
          res.resume();
          done(`HTTP ${res.statusCode}`);
        });
        req.on('error', (err) => done(err.message));
        req.end('{}');
      });
    const refusing = flipping();
    expect(await checkTarget(`http://rebind.example:${target.port}/`, none, refusing)).toBeUndefined();
    expect(await post(guardedLookup(none, refusing))).toBe('address 127.0.0.1 is not allowed');
    expect(target.seen).toHaveLength(0);
    // The control: with 127.0.0.1 allowed, the same flip reaches the receiver.
    const allowed = flipping();
    expect(await checkTarget(`http://rebind.example:${target.port}/`, local, allowed)).toBeUndefined();
    expect(await post(guardedLookup(local, allowed))).toBe('HTTP 204');
    expect(target.seen).toHaveLength(1);
    await target.close();
  });
});

/** Whether something listens on the port (NATS is started by .ci/run; a developer may not have it). */
const natsUp = await new Promise<boolean>((done) => {
  const socket = tcpConnect({ host: '127.0.0.1', port: 4222, timeout: 1000 }, () => {
    socket.destroy();
    done(true);
  });
  socket.on('error', () => done(false));
  socket.on('timeout', () => {
    socket.destroy();
    done(false);
  });
});
if (!natsUp) console.warn('JetStreamSink tests skipped: nothing listens on 127.0.0.1:4222 (start nats-server -js, as .ci/run does)');

describe.skipIf(!natsUp)('JetStreamSink (with NATS JetStream on 127.0.0.1:4222)', () => {
  const suffix = crypto.randomUUID().replaceAll('-', '');
  const stream = `STRONGROOM_TEST_${suffix}`;
  const subject = `strongroom.test.${suffix}.events`;
  let broker: NatsBroker;
  let admin: Awaited<ReturnType<typeof connect>>;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    admin = await connect({ servers: '127.0.0.1:4222' });
    jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: stream, subjects: [`strongroom.test.${suffix}.>`] });
    broker = await NatsBroker.connect('127.0.0.1:4222', { name: 'strongroom-test' });
  });

  afterAll(async () => {
    await jsm?.streams.delete(stream);
    await broker?.close();
    await admin?.close();
  });

  it('stores each event once, however often it is delivered', async () => {
    const sink = broker.sink(subject);
    const events = [event({ n: 1 }), event({ n: 2 }), event({ n: 3 })];
    expect(await sink.deliver(events)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(await sink.deliver(events)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect((await jsm.streams.info(stream)).state.messages).toBe(3);
    for (const [n, sent] of events.entries()) {
      const stored = await jsm.streams.getMessage(stream, { seq: n + 1 });
      expect(stored?.string()).toBe(sent.body);
      expect(stored?.header.get('content-type')).toBe('application/cloudevents+json');
      expect(stored?.header.get('Nats-Msg-Id')).toBe(sent.id);
    }
  });

  it('names the stream capturing a subject, and none for a subject no stream captures', async () => {
    expect(await broker.streamFor(subject)).toBe(stream);
    expect(await broker.streamFor(`strongroom.nowhere.${suffix}`)).toBeUndefined();
  });

  it('fails, without throwing, a delivery no stream takes or after the connection closed', async () => {
    const [lost] = await broker.sink(`strongroom.nowhere.${suffix}`).deliver([event()]);
    expect(lost).toEqual({ ok: false, retry: true, error: 'no stream captures the subject' });
    const closing = await NatsBroker.connect('127.0.0.1:4222');
    const sink = closing.sink(subject);
    await closing.close();
    expect(await sink.deliver([event()])).toEqual([{ ok: false, retry: true, error: 'publish failed: closed connection' }]);
  });
});
