// The webhook sink: each privacy event is one signed POST (Standard Webhooks headers, the CloudEvent as the
// structured-mode JSON body) to a tenant's URL, through the SSRF guard, over kept-alive sockets, never following
// a redirect, with a deadline on the whole exchange and a cap on what the receiver may answer.
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { deliverEach, failure, type DeliveryResult, type Outgoing, type Sink } from './sink.js';
import { checkUrl, guardedLookup, type AllowList } from './ssrf.js';

const SECRET_PREFIX = 'whsec_';

export interface WebhookOptions {
  /** The receiver, http or https (checked at subscription time with checkTarget). */
  url: string;
  /** Standard Webhooks secrets (`whsec_<base64>`); two during a rotation's overlap: each signs every event. */
  secrets: readonly string[];
  /** Addresses the SSRF guard lets through although they are not public. */
  allow: AllowList;
  /** Deadline of one delivery, from connecting to the answer's last byte. */
  timeoutMs: number;
  /** The most of an answer read; a longer one fails the delivery. */
  maxResponseBytes: number;
  /** Deliveries in flight at once, and sockets kept open to the receiver (default 32). */
  concurrency?: number;
  userAgent?: string;
}

/** A new Standard Webhooks secret: 32 random bytes, `whsec_` and base64. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The key bytes of a `whsec_` secret; throws without repeating the secret. */
function secretKey(secret: string, index: number): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error(`webhook secret ${index + 1} is not "${SECRET_PREFIX}" and base64`);
  return Buffer.from(encoded, 'base64');
}

/** Whether a 2xx answer says the receiver erased the person: a JSON object with `erased: true`. */
function saysErased(body: Buffer): boolean {
  if (body.length === 0 || body[0] !== 0x7b /* { */) return false;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && (parsed as { erased?: unknown }).erased === true;
  } catch {
    return false;
  }
}

export class WebhookSink implements Sink {
  private readonly target: URL;
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly lookup: ReturnType<typeof guardedLookup>;
  /** The key bytes, shared with the signers (raw format keeps the same buffer), zeroed on close. */
  private readonly keys: Buffer[];
  private readonly signers: Webhook[];
  /** Why every delivery fails without a request (a forbidden literal address), or undefined. */
  private readonly refusal: string | undefined;
  private readonly concurrency: number;
  private closed = false;

  constructor(private readonly options: WebhookOptions) {
    this.target = new URL(options.url);
    if (this.target.protocol !== 'http:' && this.target.protocol !== 'https:') throw new Error('a webhook URL is http or https');
    if (options.secrets.length === 0) throw new Error('a webhook needs at least one secret');
    this.keys = options.secrets.map(secretKey);
    this.signers = this.keys.map((key) => new Webhook(key, { format: 'raw' }));
    this.refusal = checkUrl(this.target, options.allow);
    this.concurrency = Math.max(1, options.concurrency ?? 32);
    this.transport = this.target.protocol === 'https:' ? https : http;
    const agentOptions = { keepAlive: true, maxSockets: this.concurrency, maxFreeSockets: this.concurrency };
    this.agent = this.target.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.lookup = guardedLookup(options.allow);
  }

  deliver(events: readonly Outgoing[]): Promise<DeliveryResult[]> {
    return deliverEach(events, this.concurrency, (event) => this.post(event));
  }

  /** Signature headers: one `v1,<base64>` per secret, space-separated. */
  private sign(event: Outgoing, seconds: number): string {
    const at = new Date(seconds * 1000);
    return this.signers.map((signer) => signer.sign(event.id, at, event.body)).join(' ');
  }

  private post(event: Outgoing): Promise<DeliveryResult> {
    if (this.closed) return Promise.resolve(failure('sink closed'));
    if (this.refusal) return Promise.resolve(failure(this.refusal));
    const seconds = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/cloudevents+json; charset=utf-8',
      'content-length': Buffer.byteLength(event.body),
      'user-agent': this.options.userAgent ?? 'Strongroom-Webhooks',
      'webhook-id': event.id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': this.sign(event, seconds),
    };
    return new Promise((settle) => {
      const { timeoutMs, maxResponseBytes } = this.options;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (result: DeliveryResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        settle(result);
      };
      const request = this.transport.request(this.target, { method: 'POST', agent: this.agent, lookup: this.lookup, headers });
      timer = setTimeout(() => {
        finish(failure(`timed out after ${timeoutMs} ms`));
        request.destroy();
      }, timeoutMs);
      // One reason for every network failure (refused, reset, unreachable…): the result is no port scanner.
      request.on('error', (err: NodeJS.ErrnoException) => finish(failure(err.code === 'EADDRNOTALLOWED' ? err.message.slice(0, 200) : 'could not connect or the connection failed')));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.resume();
          return finish(failure(`redirect not followed (HTTP ${status})`, status));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) {
            finish(failure(`response larger than ${maxResponseBytes} bytes`, status));
            request.destroy();
          } else if (status < 300) chunks.push(chunk);
        });
        response.on('error', (err) => finish(failure(err.message.slice(0, 200), status)));
        response.on('end', () => {
          if (status < 200 || status >= 300) return finish(failure(`HTTP ${status}`, status));
          finish(saysErased(Buffer.concat(chunks)) ? { ok: true, status, erased: true } : { ok: true, status });
        });
      });
      request.end(event.body);
    });
  }

  /** Closes the kept-alive sockets and zeroes the signing keys; deliveries after this fail. */
  close(): Promise<void> {
    this.closed = true;
    this.agent.destroy();
    for (const key of this.keys) key.fill(0);
    return Promise.resolve();
  }
}
