// Audit records posted to an HTTP log collector, one POST per batch, in one of three bodies: NDJSON lines (Vector,
// Fluent Bit, Logstash's http input), Splunk's HTTP Event Collector, or Elasticsearch's bulk API (ids that make a
// resent batch a no-op). Errors name the status only: a collector's answer may quote the documents.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { hostname } from 'node:os';
import { toJson, type ExportRecord } from './record.js';
import { toOcsf } from './ocsf.js';

/** Where and how a collector sink posts. */
export interface HttpCollectorOptions {
  /** The endpoint: e.g. https://splunk:8088/services/collector/event, https://elastic:9200/_bulk. */
  url: string;
  shape: 'lines' | 'splunk-hec' | 'elastic-bulk';
  /** Sent with every request: e.g. `authorization: Splunk <token>` or `ApiKey <key>`. */
  headers?: Record<string, string>;
  /** Elastic's `_index` (else the URL's), or Splunk's `index` (else the token's default). */
  index?: string;
  /** Splunk's `host` field (default: this machine's name). */
  host?: string;
  /** For the whole POST: connecting, sending and reading the answer. */
  timeoutMs: number;
}

/** The most of a collector's answer read (an Elastic bulk answer lists every item). */
const MAX_ANSWER = 64 * 1024 * 1024;

/**
 * Posts batches of records to an HTTP collector on kept-alive connections. A send rejects on a non-2xx answer, an
 * Elastic bulk answer with any item error but a 409 (the document is there already: a resend), a deadline or a
 * network error; the caller resends from its cursor.
 */
export class HttpCollectorSink {
  private readonly agent: HttpAgent;
  private readonly url: URL;

  constructor(private readonly o: HttpCollectorOptions) {
    this.url = new URL(o.url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') throw new RangeError('a collector URL must be http: or https:');
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /** Posts `records` as one batch, each as our JSON or as OCSF. */
  async send(records: ExportRecord[], format: 'json' | 'ocsf'): Promise<void> {
    if (records.length === 0) return;
    const { body, type } = this.body(records, format);
    const { status, answer } = await this.post(body, type);
    if (status < 200 || status >= 300) throw new Error(`collector answered ${status}`);
    if (this.o.shape === 'elastic-bulk') bulkAnswerOk(answer);
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private body(records: ExportRecord[], format: 'json' | 'ocsf'): { body: string; type: string } {
    const doc = (r: ExportRecord) => (format === 'json' ? toJson(r) : JSON.stringify(toOcsf(r)));
    if (this.o.shape === 'lines') return { body: records.map((r) => `${doc(r)}\n`).join(''), type: 'application/x-ndjson' };
    if (this.o.shape === 'splunk-hec') {
      const host = JSON.stringify(this.o.host ?? hostname());
      const index = this.o.index === undefined ? '' : `,"index":${JSON.stringify(this.o.index)}`;
      const event = (r: ExportRecord) => `{"time":${secondsOf(r)},"host":${host},"source":"strongroom","sourcetype":"strongroom:audit"${index},"event":${doc(r)}}`;
      return { body: records.map(event).join(''), type: 'application/json' };
    }
    const index = this.o.index === undefined ? {} : { _index: this.o.index };
    // `@timestamp` first: Elastic's data streams refuse a document without it; readers of the record ignore it.
    const pair = (r: ExportRecord) => {
      const action = JSON.stringify({ create: { ...index, _id: documentId(r) } });
      const stamp = JSON.stringify(new Date(secondsOf(r) * 1000).toISOString());
      return `${action}\n{"@timestamp":${stamp},${doc(r).slice(1)}\n`;
    };
    return { body: records.map(pair).join(''), type: 'application/x-ndjson' };
  }

  private post(body: string, type: string): Promise<{ status: number; answer: string }> {
    const request = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const data = Buffer.from(body, 'utf8');
    return new Promise((resolve, reject) => {
      const req = request(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: { ...this.o.headers, 'content-type': type, 'content-length': String(data.length) },
      });
      const timer = setTimeout(() => req.destroy(new Error(`collector did not answer within ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
      const fail = (e: Error) => {
        clearTimeout(timer);
        reject(e);
      };
      req.once('error', fail);
      req.once('response', (res: IncomingMessage) => {
        res.once('error', fail);
        readAnswer(res).then((answer) => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, answer });
        }, fail);
      });
      req.end(data);
    });
  }
}

/** The Elasticsearch document id of a record: a resent record lands on its own document and is refused as a 409. */
export function documentId(r: ExportRecord): string {
  return r.kind === 'checkpoint' ? `${r.tenant}-checkpoint-${r.line.seq}` : `${r.tenant}-${r.seq}`;
}

function secondsOf(r: ExportRecord): number {
  return r.kind === 'checkpoint' ? r.line.time : r.when;
}

function readAnswer(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_ANSWER) res.destroy(new Error('collector answer too large'));
      else chunks.push(c);
    });
    res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.once('close', () => {
      if (!res.complete) reject(new Error('collector answer cut short'));
    });
  });
}

/** Throws unless every item of a bulk answer was created or was there already (409). */
function bulkAnswerOk(answer: string): void {
  let v: { errors?: unknown; items?: unknown };
  try {
    v = JSON.parse(answer) as typeof v;
  } catch {
    throw new Error('collector answered 2xx with no bulk answer');
  }
  if (v.errors === false) return;
  if (v.errors !== true || !Array.isArray(v.items)) throw new Error('collector answered 2xx with no bulk answer');
  const failed = v.items.filter((item: unknown) => {
    const op = item && typeof item === 'object' ? (Object.values(item)[0] as { status?: unknown } | undefined) : undefined;
    const status = typeof op?.status === 'number' ? op.status : 0;
    return !(status >= 200 && status < 300) && status !== 409;
  });
  if (failed.length) throw new Error(`collector refused ${failed.length} of ${v.items.length} documents`);
}
