// The SIEM export formats read back exactly what they wrote: our JSON, OCSF and RFC 5424 syslog, for any text in any
// field (quotes, backslashes, brackets, newlines, any Unicode), and a syslog message is always one ASCII line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { auditDigest, auditLeaf, leafOfDigest, parseCheckpoint, type CheckpointLine } from '../../../../../../proto/audit-checkpoint.js';
import type { AuditEventRow } from '../../../../../../api/store/audit.js';
import { canonical, canonicalHead } from '../../../../../../api/vault/audit/note.js';
import { checkpointRecord, eventRecord, eventRowOf, parseJson, toJson, type ExportRecord } from '../../../../../../api/vault/audit/siem/record.js';
import { activityOf, fromOcsf, toOcsf } from '../../../../../../api/vault/audit/siem/ocsf.js';
import { formatSyslog, frame, parseSyslogLine } from '../../../../../../api/vault/audit/siem/syslog.js';

const SPECIALS = ['"', '\\', ']', '[', '{', '}', '\n', '\r\n', '\t', '\u0000', '\u007f', '\u0085', '\u2028', '\ufeff', '\ud83d\ude00', '\ud800', ' - '];
const text: fc.Arbitrary<string> = fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...SPECIALS)), { maxLength: 6 }).map((a) => a.join(''));
const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const base64: fc.Arbitrary<string> = fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString('base64'));
const actor = fc.oneof(
  text,
  fc.record({
    kind: fc.constantFrom('root', 'tenant-admin', 'role', 'login', 'system', 'unauthenticated'),
    id: fc.uuid(),
    facts: fc.record({ roleid: fc.nat(), rolename: text, person: fc.uuid(), requestid: text }, { requiredKeys: [] }),
  }).map(({ kind, id, facts }) => `${kind}:${id} ${JSON.stringify(facts)}`),
);

const event: fc.Arbitrary<ExportRecord> = fc.record({
  kind: fc.constant('event' as const),
  tenant: fc.integer({ min: 1, max: 2 ** 31 }),
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  uuid: fc.uuid(),
  when: fc.integer({ min: 0, max: 253_402_300_799 }),
  title: fc.oneof(fc.constantFrom('UserCreate', 'UserGet', 'AuditListUserEvents', 'SessionUpsert', 'UserDelete', 'AgreementAccept'), text),
  status: fc.constantFrom('ok' as const, 'error' as const),
  msg: fc.option(text, { nil: null }),
  actor,
  record: fc.option(text, { nil: null }),
  mode: fc.option(text, { nil: null }),
  app: fc.option(text, { nil: null }),
  detailsdigest: fc.option(hex(32), { nil: null }),
  // The bytes travel only with an event of the chain's first form.
  details: fc.option(fc.option(base64, { nil: null }), { nil: undefined }),
  link: hex(32),
  digest: fc.oneof(hex(32), fc.constant('')),
});

const checkpoint: fc.Arbitrary<ExportRecord> = fc
  .record({
    tenant: fc.integer({ min: 1, max: 2 ** 31 }),
    seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    link: hex(32),
    digest: hex(32),
    time: fc.integer({ min: 0, max: 253_402_300_799 }),
    signature: fc.uint8Array({ minLength: 64, maxLength: 64 }),
    timestamp: fc.option(fc.uint8Array({ minLength: 1, maxLength: 200 }), { nil: undefined }),
  })
  .map(({ signature, timestamp, ...c }) => {
    const line: CheckpointLine = { type: 'strongroom.audit.checkpoint', v: 1, ...c, signature: Buffer.from(signature).toString('base64') };
    return checkpointRecord(line, timestamp && Buffer.from(timestamp));
  });

const skipped: fc.Arbitrary<ExportRecord> = fc.record({
  kind: fc.constant('skipped' as const),
  tenant: fc.integer({ min: 1, max: 2 ** 31 }),
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  when: fc.integer({ min: 0, max: 253_402_300_799 }),
  digest: hex(32),
  leaf: fc.option(hex(32), { nil: undefined }),
}, { requiredKeys: ['kind', 'tenant', 'seq', 'when', 'digest'] });

const record = fc.oneof(event, checkpoint, skipped);

/** The parts of an OCSF event the tests look at. */
interface Ocsf {
  type_uid: number;
  activity_id: number;
  status_id: number;
  status_detail?: string;
  actor: unknown;
  metadata: Record<string, unknown>;
  unmapped: Record<string, unknown>;
}
const name = (max: number) => fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: max });
const syslogOptions = fc.record({ hostname: name(255), appName: name(48), format: fc.constantFrom('json' as const, 'ocsf' as const) });

describe('the vault JSON line', () => {
  it('reads back every record exactly, from one line', () => {
    fc.assert(
      fc.property(record, (r) => {
        const line = toJson(r);
        expect(line).not.toMatch(/[\n\r]/);
        expect(parseJson(line)).toEqual(r);
      }),
    );
  });

  it('keeps a checkpoint a checkpoint line that parseCheckpoint reads', () => {
    fc.assert(
      fc.property(checkpoint, (r) => {
        expect(r.kind === 'checkpoint' && parseCheckpoint(toJson(r))).toMatchObject(r.kind === 'checkpoint' ? r.line : {});
      }),
    );
  });

  it('gives back the stored row, whose canonical text and digest are the same', () => {
    const row: AuditEventRow = {
      seq: 17,
      uuid: '2f1c3c1e-9d55-4f7e-9a37-6a0e8f0e6b11',
      when: 1_700_000_000,
      title: 'UserGet',
      status: 'ok',
      msg: null,
      actor: 'role:abc {"roleid":3,"rolename":"support","requestid":"r-1"}',
      record: 'tok-1',
      mode: 'token',
      app: null,
      details: Buffer.from([1, 2, 3, 250]),
      hash: Buffer.alloc(32, 7),
      digest: Buffer.alloc(32, 9),
    };
    const back = eventRowOf(parseJson(toJson(eventRecord(2, row, { withDetails: true }))) as Extract<ExportRecord, { kind: 'event' }>);
    expect(back).toEqual(row);
    expect(auditDigest(Buffer.alloc(32), back.seq, canonical(back))).toEqual(auditDigest(Buffer.alloc(32), row.seq, canonical(row)));
    expect(eventRecord(2, { ...row, digest: null })).toMatchObject({ digest: '' });
    // Without its bytes, the details' hash alone gives the same leaf.
    const hashed = parseJson(toJson(eventRecord(2, row))) as Extract<ExportRecord, { kind: 'event' }>;
    expect(hashed.details).toBeUndefined();
    expect(hashed.detailsdigest).toBe(createHash('sha256').update(row.details!).digest('hex'));
    expect(leafOfDigest(canonicalHead(hashed), hashed.detailsdigest)).toEqual(auditLeaf(canonical(row)));
  });

  it('reads no other line as one of ours', () => {
    for (const line of ['', 'hello', '{}', '{"type":"strongroom.audit.event","v":1}', '{"type":"other","v":1}', '[1]', 'null']) expect(parseJson(line)).toBeNull();
    fc.assert(
      fc.property(fc.json(), (j) => {
        expect(parseJson(j)).toBeNull();
      }),
    );
  });
});

describe('OCSF', () => {
  it('reads back every record exactly', () => {
    fc.assert(
      fc.property(record, (r) => {
        expect(fromOcsf(JSON.parse(JSON.stringify(toOcsf(r))))).toEqual(r);
      }),
    );
  });

  it('maps an event to API Activity with its operation, status, time and ids', () => {
    fc.assert(
      fc.property(event, (r) => {
        if (r.kind !== 'event') return;
        const o = toOcsf(r) as Ocsf;
        expect(o).toMatchObject({ class_uid: 6003, category_uid: 6, time: r.when * 1000, api: { operation: r.title } });
        expect(o.type_uid).toBe(600300 + o.activity_id);
        expect(o.status_id).toBe(r.status === 'ok' ? 1 : 2);
        expect(o.metadata).toMatchObject({ product: { name: 'Strongroom', vendor_name: 'Strongroom' }, version: '1.3.0', uid: r.uuid, sequence: r.seq });
        expect(o.unmapped).toMatchObject({ tenant: r.tenant, detailsdigest: r.detailsdigest, link: r.link, digest: r.digest });
        expect(o.unmapped.details).toBe(r.details);
      }),
    );
  });

  it('takes the activity from the title verb', () => {
    const cases: [string, number][] = [
      ['UserCreate', 1],
      ['XTokenCreateForRole', 1],
      ['UserGet', 2],
      ['AuditListUserEvents', 2],
      ['SystemSearchUserProfiles', 2],
      ['UserUpdate', 3],
      ['UserPatch', 3],
      ['SessionUpsert', 3],
      ['GroupDeleteUser', 4],
      ['AgreementAccept', 99],
      ['Target', 99],
    ];
    for (const [title, id] of cases) expect([title, activityOf(title).id]).toEqual([title, id]);
  });

  it('names the caller from the actor text without its sealed details', () => {
    const r = eventRecord(2, {
      seq: 1,
      uuid: 'u',
      when: 1,
      title: 'UserGet',
      status: 'error',
      msg: 'Access denied',
      actor: 'login:xt-9 {"person":"tok-person","requestid":"req-5"}',
      record: null,
      mode: null,
      app: null,
      details: Buffer.from('sealed'),
      hash: Buffer.alloc(32),
      digest: Buffer.alloc(32),
    });
    const o = toOcsf(r) as Ocsf;
    expect(o.unmapped.details).toBeUndefined();
    expect(o.unmapped.detailsdigest).toBe(createHash('sha256').update('sealed').digest('hex'));
    expect(o.actor).toEqual({ user: { type: 'login', type_id: 1, uid: 'tok-person', credential_uid: 'xt-9' } });
    expect(o.metadata.correlation_uid).toBe('req-5');
    expect(o.status_detail).toBe('Access denied');
  });

  it('maps a checkpoint to activity 99 with its line in unmapped', () => {
    fc.assert(
      fc.property(checkpoint, (r) => {
        if (r.kind !== 'checkpoint') return;
        const o = toOcsf(r) as Ocsf;
        expect(o).toMatchObject({ class_uid: 6003, activity_id: 99, type_uid: 600399, time: r.line.time * 1000, unmapped: { checkpoint: r.line } });
      }),
    );
  });
});

describe('RFC 5424 syslog', () => {
  it('reads back every record from the message and from a file line after a template\'s fields', () => {
    fc.assert(
      fc.property(record, syslogOptions, (r, o) => {
        const msg = formatSyslog(r, o);
        expect(parseSyslogLine(msg)).toEqual(r);
        expect(parseSyslogLine(`${msg}\n`)).toEqual(r);
        const [, time, host, app, , msgid] = msg.split(' ');
        const body = msg.slice(msg.indexOf('] ') + 2);
        expect(parseSyslogLine(`${time} 13 6 ${host} ${app} ${msgid} [strongroom@32473 tenant="1" seq="1"] ${body}`)).toEqual(r);
      }),
    );
  });

  it('is one line of printable ASCII with the header fields RFC 5424 asks for', () => {
    fc.assert(
      fc.property(record, syslogOptions, (r, o) => {
        const msg = formatSyslog(r, o);
        expect(msg).toMatch(/^[\x20-\x7e]*$/);
        const severity = r.kind === 'checkpoint' ? 5 : r.kind === 'skipped' || r.status === 'ok' ? 6 : 4;
        const seq = r.kind === 'checkpoint' ? r.line.seq : r.seq;
        const seconds = r.kind === 'checkpoint' ? r.line.time : r.when;
        const head = `<${13 * 8 + severity}>1 ${new Date(seconds * 1000).toISOString().replace('.000Z', 'Z')} ${o.hostname} ${o.appName} - ${r.kind} [strongroom@32473 tenant="${r.tenant}" seq="${seq}"] `;
        expect(msg.startsWith(head)).toBe(true);
      }),
    );
  });

  it('finds the message after structured data whose values hold escaped quotes and brackets', () => {
    const r = parseJson(toJson(checkpointRecord({ type: 'strongroom.audit.checkpoint', v: 1, tenant: 3, seq: 4, link: 'a'.repeat(64), digest: 'b'.repeat(64), time: 5, signature: 'c2ln' })))!;
    const body = toJson(r);
    expect(parseSyslogLine(`<109>1 1970-01-01T00:00:05Z h a - checkpoint [x@1 a="q\\"] {\\\\" b="]"][y@2] ${body}`)).toEqual(r);
    expect(parseSyslogLine(`<109>1 1970-01-01T00:00:05Z h a - checkpoint - ${body}`)).toEqual(r);
    expect(parseSyslogLine('<109>1 1970-01-01T00:00:05Z h a - - - hello {"not":"ours"}')).toBeNull();
  });

  it('refuses a host or app name RFC 5424 forbids', () => {
    const r = parseJson(toJson(checkpointRecord({ type: 'strongroom.audit.checkpoint', v: 1, tenant: 3, seq: 4, link: 'a'.repeat(64), digest: 'b'.repeat(64), time: 5, signature: 'c2ln' })))!;
    expect(() => formatSyslog(r, { hostname: 'a b', appName: 'x', format: 'json' })).toThrow(RangeError);
    expect(() => formatSyslog(r, { hostname: 'h', appName: 'x'.repeat(49), format: 'json' })).toThrow(RangeError);
  });

  it('frames with the byte length as prefix (RFC 6587 octet counting)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (msg) => {
        const f = frame(msg);
        const space = f.indexOf(0x20);
        expect(Number(f.subarray(0, space).toString('ascii'))).toBe(Buffer.byteLength(msg, 'utf8'));
        expect(f.subarray(space + 1).toString('utf8')).toBe(msg);
      }),
    );
  });
});
