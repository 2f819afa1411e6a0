// The SIEM transports against real receivers: Debian's rsyslogd over TCP and TLS (RFC 5425, octet-counted), read
// back from the file it writes; and HTTP collectors (NDJSON, Splunk HEC, Elastic bulk) as a small server in the test.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';
import { once } from 'node:events';
import { describe, expect, test } from 'vitest';
import { startRsyslog, type Rsyslog } from '../fixtures/rsyslog.js';
import { freePort } from '../fixtures/processes.js';
import { checkpointRecord, eventRecord, parseJson, type ExportRecord } from '../../api/vault/audit/siem/record.js';
import { fromOcsf } from '../../api/vault/audit/siem/ocsf.js';
import { formatSyslog, parseSyslogLine, SyslogSink } from '../../api/vault/audit/siem/syslog.js';
import { HttpCollectorSink } from '../../api/vault/audit/siem/collector.js';

function event(seq: number, over: Partial<Parameters<typeof eventRecord>[1]> = {}): ExportRecord {
  return eventRecord(2, {
    seq,
    uuid: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    when: 1_700_000_000 + seq,
    title: 'UserGet',
    status: 'ok',
    msg: null,
    actor: 'role:xt-1 {"roleid":3,"rolename":"support","requestid":"r-1"}',
    record: 'tok-1',
    mode: 'token',
    app: null,
    details: Buffer.from([0, 1, 2, 253, 254, 255]),
    hash: Buffer.alloc(32, seq),
    digest: Buffer.alloc(32, seq + 1),
    ...over,
  });
}

/** Events with every kind of awkward text a receiver might mangle, and a checkpoint with its timestamp token. */
function records(from: number): ExportRecord[] {
  return [
    event(from),
    event(from + 1, { status: 'error', msg: 'Access denied: "quoted" \\ ] [x] {y}\nsecond line\r\n\ttab \u0000 \u007f', title: 'UserDelete' }),
    event(from + 2, { app: 'crm ünïcødé 😀 \u2028 \ufeff', actor: 'login:xt-2 {"person":"tok-9"}', details: null, digest: null }),
    checkpointRecord(
      { type: 'strongroom.audit.checkpoint', v: 1, tenant: 2, seq: from + 2, link: 'ab'.repeat(32), digest: 'cd'.repeat(32), time: 1_700_000_100, signature: Buffer.alloc(64, 5).toString('base64') },
      Buffer.from([0x30, 0x82, 0x01, 0x00]),
    ),
  ];
}

/** Waits until the receiver's file has `n` lines (rsyslog writes them a moment after it reads them). */
async function linesOf(rsyslog: Rsyslog, n: number): Promise<string[]> {
  await expect.poll(async () => (await rsyslog.lines()).length).toBeGreaterThanOrEqual(n);
  return rsyslog.lines();
}

const it = test
  .extend('rsyslog', async ({}, { onCleanup }) => {
    const r = await startRsyslog();
    onCleanup(() => r.stop());
    return r;
  })
  .extend('rsyslogTls', async ({}, { onCleanup }) => {
    const r = await startRsyslog({ tls: true });
    onCleanup(() => r.stop());
    return r;
  });

describe('SyslogSink to rsyslog', () => {
  it('delivers events and checkpoints over TCP, each line reading back as sent, in both formats', async ({ rsyslog }) => {
    const sink = new SyslogSink({ host: '127.0.0.1', port: rsyslog.port, timeoutMs: 5_000 });
    const sent = records(1);
    await sink.send(sent.map((r) => formatSyslog(r, { hostname: 'vault-0', appName: 'strongroom', format: 'json' })));
    await sink.send(sent.map((r) => formatSyslog(r, { hostname: 'vault-0', appName: 'strongroom', format: 'ocsf' })));
    await sink.close();
    const lines = await linesOf(rsyslog, sent.length * 2);
    expect(lines.map(parseSyslogLine)).toEqual([...sent, ...sent]);
    // What rsyslog itself parsed of the header: time, facility (13, log audit), severity, host, app, MSGID, SD.
    expect(lines[0]!.split(' ').slice(0, 7).join(' ')).toBe('2023-11-14T22:13:21Z 13 6 vault-0 strongroom event [strongroom@32473');
    expect(lines[1]!.split(' ').slice(1, 3)).toEqual(['13', '4']);
    expect(lines[3]!.split(' ').slice(1, 3)).toEqual(['13', '5']);
    expect(lines[3]).toContain(' checkpoint [strongroom@32473 tenant="2" seq="3"] ');
  });

  it('delivers over TLS to a server whose certificate the CA signed', async ({ rsyslogTls }) => {
    const tls = { ca: rsyslogTls.caPem!, servername: 'localhost' };
    const sink = new SyslogSink({ host: '127.0.0.1', port: rsyslogTls.port, tls, timeoutMs: 5_000 });
    const sent = records(10);
    await sink.send(sent.map((r) => formatSyslog(r, { hostname: 'vault-1', appName: 'strongroom', format: 'ocsf' })));
    await sink.send(sent.map((r) => formatSyslog(r, { hostname: 'vault-1', appName: 'strongroom', format: 'json' })));
    await sink.close();
    expect((await linesOf(rsyslogTls, sent.length * 2)).map(parseSyslogLine)).toEqual([...sent, ...sent]);
  });

  it('refuses a TLS server it cannot verify', async ({ rsyslogTls }) => {
    const sink = new SyslogSink({ host: '127.0.0.1', port: rsyslogTls.port, tls: { servername: 'localhost' }, timeoutMs: 5_000 });
    await expect(sink.send([formatSyslog(records(1)[0]!, { hostname: 'h', appName: 'a', format: 'json' })])).rejects.toThrow();
    await sink.close();
  });

  it('rejects while rsyslog is down, then reconnects and delivers after a restart on the same port', async () => {
    const first = await startRsyslog();
    const sink = new SyslogSink({ host: '127.0.0.1', port: first.port, timeoutMs: 5_000 });
    const format = (r: ExportRecord) => formatSyslog(r, { hostname: 'vault-0', appName: 'strongroom', format: 'json' });
    await sink.send(records(1).map(format));
    await linesOf(first, 4);
    await first.stop();
    await expect(sink.send(records(5).map(format))).rejects.toThrow();
    await expect(sink.send(records(5).map(format))).rejects.toThrow();
    const second = await startRsyslog({ port: first.port });
    try {
      await sink.send(records(5).map(format));
      expect((await linesOf(second, 4)).map(parseSyslogLine)).toEqual(records(5));
    } finally {
      await sink.close();
      await second.stop();
    }
  });

  it('rejects within its deadline when the receiver never finishes the TLS handshake', async () => {
    const silent: Server = createTcpServer(() => undefined);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as { port: number }).port;
    const sink = new SyslogSink({ host: '127.0.0.1', port, tls: { servername: 'localhost' }, timeoutMs: 300 });
    try {
      await expect(sink.send(['<110>1 - - - - - - x'])).rejects.toThrow(/timed out/);
    } finally {
      await sink.close();
      silent.close();
    }
  });

  it('confirms only what a receiver read to the end: one that stalls, or drops the connection unread, is not confirmed', async () => {
    // A receiver that takes the connection and never reads (nor closes): the bytes are flushed, but never confirmed.
    const held: import('node:net').Socket[] = [];
    const stalled: Server = createTcpServer((s) => void held.push(s.pause()));
    stalled.listen(0, '127.0.0.1');
    await once(stalled, 'listening');
    const sink = new SyslogSink({ host: '127.0.0.1', port: (stalled.address() as { port: number }).port, timeoutMs: 500 });
    try {
      await sink.send(['<110>1 - - - - - - unread']);
      await expect(sink.confirm()).rejects.toThrow(/did not confirm/);
    } finally {
      for (const s of held) s.destroy();
      stalled.close();
      await sink.close();
    }
    // A receiver that reads to the end and closes: confirmed.
    const reader: Server = createTcpServer((s) => s.resume().on('end', () => s.end()));
    reader.listen(0, '127.0.0.1');
    await once(reader, 'listening');
    const ok = new SyslogSink({ host: '127.0.0.1', port: (reader.address() as { port: number }).port, timeoutMs: 2_000 });
    try {
      await ok.send(['<110>1 - - - - - - read']);
      await ok.confirm();
    } finally {
      reader.close();
      await ok.close();
    }
  });

  it('rejects at once when nothing listens', async () => {
    const sink = new SyslogSink({ host: '127.0.0.1', port: await freePort(), timeoutMs: 5_000 });
    await expect(sink.send(['<110>1 - - - - - - x'])).rejects.toThrow(/ECONNREFUSED/);
  });
});

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP collector: records each request and answers with `answer` (a status and a JSON body, or no answer). */
async function collector(answer: () => { status: number; body?: unknown } | 'hang') {
  const received: Received[] = [];
  let connections = 0;
  const hanging: ServerResponse[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body });
      const a = answer();
      if (a === 'hang') return void hanging.push(res);
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body ?? {}));
    });
  });
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    received,
    connections: () => connections,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('HttpCollectorSink', () => {
  const sent = records(1);

  it('posts NDJSON lines, one batch per POST, on one kept-alive connection', async () => {
    const c = await collector(() => ({ status: 200 }));
    const sink = new HttpCollectorSink({ url: `${c.url}/ingest`, shape: 'lines', headers: { authorization: 'Bearer t' }, timeoutMs: 5_000 });
    try {
      await sink.send(sent, 'json');
      await sink.send(sent, 'ocsf');
      expect(c.received.map((r) => [r.url, r.headers['content-type'], r.headers.authorization])).toEqual([
        ['/ingest', 'application/x-ndjson', 'Bearer t'],
        ['/ingest', 'application/x-ndjson', 'Bearer t'],
      ]);
      const lines = (body: string) => body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
      expect(c.received[0]!.body.endsWith('\n')).toBe(true);
      expect(lines(c.received[0]!.body).map((l) => parseJson(JSON.stringify(l)))).toEqual(sent);
      expect(lines(c.received[1]!.body).map(fromOcsf)).toEqual(sent);
      expect(c.connections()).toBe(1);
    } finally {
      sink.close();
      await c.close();
    }
  });

  it('posts Splunk HEC events', async () => {
    const c = await collector(() => ({ status: 200, body: { text: 'Success', code: 0 } }));
    const sink = new HttpCollectorSink({ url: `${c.url}/services/collector/event`, shape: 'splunk-hec', host: 'vault-0', index: 'audit', headers: { authorization: 'Splunk tok' }, timeoutMs: 5_000 });
    try {
      await sink.send(sent, 'json');
      const r = c.received[0]!;
      expect([r.url, r.headers.authorization]).toEqual(['/services/collector/event', 'Splunk tok']);
      // Concatenated objects, as HEC takes them: split where one object ends and the next begins.
      const objects = r.body.split(/(?<=\})(?=\{"time":)/).map((o) => JSON.parse(o) as Record<string, unknown>);
      expect(objects.map((o) => ({ ...o, event: parseJson(JSON.stringify(o.event)) }))).toEqual(
        sent.map((e) => ({ time: e.kind === 'checkpoint' ? e.line.time : e.when, host: 'vault-0', source: 'strongroom', sourcetype: 'strongroom:audit', index: 'audit', event: e })),
      );
    } finally {
      sink.close();
      await c.close();
    }
  });

  it('posts Elastic bulk create pairs whose ids make a resend a duplicate', async () => {
    const c = await collector(() => ({ status: 200, body: { errors: false, items: [] } }));
    const sink = new HttpCollectorSink({ url: `${c.url}/_bulk`, shape: 'elastic-bulk', index: 'strongroom-audit', timeoutMs: 5_000 });
    try {
      await sink.send(sent, 'ocsf');
      const lines = c.received[0]!.body.split('\n');
      expect(lines.pop()).toBe('');
      expect(c.received[0]!.headers['content-type']).toBe('application/x-ndjson');
      const actions = lines.filter((_, i) => i % 2 === 0).map((l) => JSON.parse(l) as unknown);
      const docs = lines.filter((_, i) => i % 2 === 1).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(actions).toEqual(['2-1', '2-2', '2-3', '2-checkpoint-3'].map((_id) => ({ create: { _index: 'strongroom-audit', _id } })));
      expect(docs.map(fromOcsf)).toEqual(sent);
      expect(docs[0]!['@timestamp']).toBe('2023-11-14T22:13:21.000Z');
    } finally {
      sink.close();
      await c.close();
    }
  });

  it('resolves when the only bulk item errors are 409 conflicts (documents already there)', async () => {
    const conflict = { create: { status: 409, error: { type: 'version_conflict_engine_exception' } } };
    const c = await collector(() => ({ status: 200, body: { errors: true, items: [{ create: { status: 201 } }, conflict] } }));
    const sink = new HttpCollectorSink({ url: `${c.url}/_bulk`, shape: 'elastic-bulk', timeoutMs: 5_000 });
    try {
      await expect(sink.send(sent, 'json')).resolves.toBeUndefined();
      expect(JSON.parse(c.received[0]!.body.split('\n')[0]!)).toEqual({ create: { _id: '2-1' } });
    } finally {
      sink.close();
      await c.close();
    }
  });

  it('rejects a bulk answer with any other item error', async () => {
    const refused = { create: { status: 400, error: { type: 'mapper_parsing_exception' } } };
    const c = await collector(() => ({ status: 200, body: { errors: true, items: [{ create: { status: 409 } }, refused] } }));
    const sink = new HttpCollectorSink({ url: `${c.url}/_bulk`, shape: 'elastic-bulk', timeoutMs: 5_000 });
    try {
      await expect(sink.send(sent, 'json')).rejects.toThrow(/refused 1 of 2/);
    } finally {
      sink.close();
      await c.close();
    }
  });

  it('rejects a 500', async () => {
    const c = await collector(() => ({ status: 500, body: { error: 'boom' } }));
    const sink = new HttpCollectorSink({ url: c.url, shape: 'lines', timeoutMs: 5_000 });
    try {
      await expect(sink.send(sent, 'json')).rejects.toThrow(/answered 500/);
    } finally {
      sink.close();
      await c.close();
    }
  });

  it('rejects within its deadline when the collector never answers', async () => {
    const c = await collector(() => 'hang');
    const sink = new HttpCollectorSink({ url: c.url, shape: 'splunk-hec', timeoutMs: 300 });
    try {
      await expect(sink.send(sent, 'json')).rejects.toThrow(/did not answer within 300 ms/);
    } finally {
      sink.close();
      await c.close();
    }
  });

  it('rejects a network error', async () => {
    const sink = new HttpCollectorSink({ url: `http://127.0.0.1:${await freePort()}/`, shape: 'lines', timeoutMs: 5_000 });
    await expect(sink.send(sent, 'json')).rejects.toThrow(/ECONNREFUSED/);
    sink.close();
  });
});
