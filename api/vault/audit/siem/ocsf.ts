// Audit records as OCSF 1.3.0 API Activity events (class 6003), for SIEMs that speak OCSF, and back: every field the
// chains cover rides along (the verifiable copy in `unmapped`), so a captured OCSF stream is verified like our JSON.
//
// | OCSF attribute              | event                                                  | checkpoint                         |
// | --------------------------- | ------------------------------------------------------ | ---------------------------------- |
// | class_uid / class_name      | 6003 / "API Activity"                                  | same                               |
// | category_uid / _name        | 6 / "Application Activity"                             | same                               |
// | activity_id / activity_name | by the title's first verb (PascalCase words): Create 1 | 99 / "Other"                       |
// |                             | "Create"; Get, List, Search 2 "Read"; Update, Patch,   |                                    |
// |                             | Upsert 3 "Update"; Delete 4 "Delete"; else 99 "Other"  |                                    |
// | type_uid / type_name        | 6003 * 100 + activity_id / "API Activity: <activity>"  | 600399 / "API Activity: Other"     |
// | severity_id / severity      | ok 1 "Informational", error 2 "Low"                    | 1 "Informational"                  |
// | time                        | `when` (seconds) * 1000, ms since the epoch            | the line's `time` * 1000           |
// | status_id / status          | ok 1 "Success", error 2 "Failure"                      | 1 "Success"                        |
// | status_detail               | `msg` (left out when null)                             | —                                  |
// | api.operation               | `title` (the wire operation, e.g. UserGet)             | "AuditCheckpoint"                  |
// | api.service.name            | "Strongroom"                                           | same                               |
// | actor.user.type             | the actor text's kind: root, tenant-admin, role,       | —                                  |
// |                             | login, public, system, unauthenticated                 |                                    |
// | actor.user.type_id          | root, tenant-admin 2 Admin; role, login, public 1      | —                                  |
// |                             | User; system 3 System; unauthenticated 0; else 99      |                                    |
// | actor.user.uid              | login: the person's token (else the xtoken id); other  | —                                  |
// |                             | credentials: the xtoken id; else the text's first word |                                    |
// | actor.user.credential_uid   | the xtoken id (never its secret), when there is one    | —                                  |
// | actor.user.name             | the role's name, for a role's xtoken                   | —                                  |
// | actor.app_name              | —                                                      | "Strongroom tokenizer" (signer)    |
// | metadata.product            | { name: "Strongroom", vendor_name: "Strongroom" }      | same                               |
// | metadata.version            | "1.3.0" (the OCSF schema's version)                    | same                               |
// | metadata.uid                | the event's uuid                                       | "checkpoint-<tenant>-<seq>"        |
// | metadata.sequence           | seq (the tenant's chain position)                      | the line's seq                     |
// | metadata.tenant_uid         | the tenant's id, as text                               | same                               |
// | metadata.correlation_uid    | the request's id (X-Request-Id), when the actor has it | —                                  |
// | metadata.log_name           | "strongroom.audit"                                     | same                               |
// | unmapped.tenant, .record,   | the stored fields as they are: `detailsdigest` the     | —                                  |
// | .mode, .app, .detailsdigest,| sealed details' SHA-256 (and `details`, the bytes in   |                                    |
// | .details, .actor, .link,    | base64, only for an event of the chain's first form),  |                                    |
// | .digest                     | `actor` the whole text, the digests and `link` hex     |                                    |
// | unmapped.checkpoint         | —                                                      | the signed checkpoint line         |
// | unmapped.timestamp          | —                                                      | the RFC 3161 token (base64 DER)    |
//
// Left out: src_endpoint (required by the class): the client's address is in the sealed details and is never opened
// here. fromOcsf reads back only the fields the table marks as the record's (time, status_id, status_detail,
// api.operation, metadata.uid, metadata.sequence, unmapped); the rest is derived and may be enriched by a SIEM.
import type { CheckpointRecord, EventRecord, ExportRecord, SkippedRecord } from './record.js';
import { isObject, validCheckpoint, validEvent, validSkipped } from './record.js';
import { whoOf } from '../actor.js';

const PRODUCT = { name: 'Strongroom', vendor_name: 'Strongroom' };
const OCSF_VERSION = '1.3.0';
const CLASS = { class_uid: 6003, class_name: 'API Activity', category_uid: 6, category_name: 'Application Activity' } as const;

const ACTIVITIES: Record<string, [number, string]> = {
  Create: [1, 'Create'],
  Get: [2, 'Read'],
  List: [2, 'Read'],
  Search: [2, 'Read'],
  Update: [3, 'Update'],
  Patch: [3, 'Update'],
  Upsert: [3, 'Update'],
  Delete: [4, 'Delete'],
};

/** The OCSF activity of an operation: its title's first verb among the PascalCase words, else Other (99). */
export function activityOf(title: string): { id: number; name: string } {
  for (const word of title.match(/[A-Z][a-z0-9]*/g) ?? []) {
    const a = Object.hasOwn(ACTIVITIES, word) ? ACTIVITIES[word] : undefined;
    if (a) return { id: a[0], name: a[1] };
  }
  return { id: 99, name: 'Other' };
}

const USER_TYPES: Record<string, number> = { root: 2, 'tenant-admin': 2, role: 1, login: 1, public: 1, system: 3, unauthenticated: 0 };

/** The OCSF actor of an event's `actor` text (kind, xtoken id, role, person): only what the text says in the clear. */
function actorOf(text: string): Record<string, unknown> {
  const who = whoOf(text);
  const first = text.split(' ', 1)[0] ?? '';
  const user: Record<string, unknown> = {
    type: who.kind,
    type_id: Object.hasOwn(USER_TYPES, who.kind) ? USER_TYPES[who.kind] : 99,
    uid: (who.kind === 'login' ? who.person : null) ?? who.xtokenid ?? first,
  };
  if (who.xtokenid) user.credential_uid = who.xtokenid;
  if (who.rolename) user.name = who.rolename;
  return { user };
}

function metadata(tenant: number, uid: string, sequence: number): Record<string, unknown> {
  return { product: PRODUCT, version: OCSF_VERSION, uid, sequence, tenant_uid: String(tenant), log_name: 'strongroom.audit' };
}

function eventOcsf(r: EventRecord): Record<string, unknown> {
  const activity = activityOf(r.title);
  const ok = r.status === 'ok';
  const requestId = whoOf(r.actor).requestid;
  return {
    ...CLASS,
    activity_id: activity.id,
    activity_name: activity.name,
    type_uid: CLASS.class_uid * 100 + activity.id,
    type_name: `API Activity: ${activity.name}`,
    severity_id: ok ? 1 : 2,
    severity: ok ? 'Informational' : 'Low',
    time: r.when * 1000,
    status_id: ok ? 1 : 2,
    status: ok ? 'Success' : 'Failure',
    ...(r.msg === null ? {} : { status_detail: r.msg }),
    api: { operation: r.title, service: { name: 'Strongroom' } },
    actor: actorOf(r.actor),
    metadata: { ...metadata(r.tenant, r.uuid, r.seq), ...(requestId ? { correlation_uid: requestId } : {}) },
    unmapped: {
      tenant: r.tenant,
      record: r.record,
      mode: r.mode,
      app: r.app,
      detailsdigest: r.detailsdigest,
      ...(r.details !== undefined ? { details: r.details } : {}),
      actor: r.actor,
      link: r.link,
      digest: r.digest,
    },
  };
}

function checkpointOcsf(r: CheckpointRecord): Record<string, unknown> {
  const l = r.line;
  return {
    ...CLASS,
    activity_id: 99,
    activity_name: 'Other',
    type_uid: CLASS.class_uid * 100 + 99,
    type_name: 'API Activity: Other',
    severity_id: 1,
    severity: 'Informational',
    time: l.time * 1000,
    status_id: 1,
    status: 'Success',
    api: { operation: 'AuditCheckpoint', service: { name: 'Strongroom' } },
    actor: { app_name: 'Strongroom tokenizer' },
    metadata: metadata(l.tenant, `checkpoint-${l.tenant}-${l.seq}`, l.seq),
    unmapped: {
      checkpoint: { type: l.type, v: l.v, tenant: l.tenant, seq: l.seq, link: l.link, digest: l.digest, time: l.time, signature: l.signature },
      ...(r.timestamp === undefined ? {} : { timestamp: r.timestamp }),
    },
  };
}

/** An event a filter left out: API Activity "Other", its sequence number, time and digest in `unmapped.skipped`. */
function skippedOcsf(r: SkippedRecord): Record<string, unknown> {
  return {
    ...CLASS,
    activity_id: 99,
    activity_name: 'Other',
    type_uid: CLASS.class_uid * 100 + 99,
    type_name: 'API Activity: Other',
    severity_id: 1,
    severity: 'Informational',
    time: r.when * 1000,
    status_id: 0,
    status: 'Unknown',
    api: { operation: 'AuditEventFiltered', service: { name: 'Strongroom' } },
    metadata: metadata(r.tenant, `skipped-${r.tenant}-${r.seq}`, r.seq),
    unmapped: { skipped: { tenant: r.tenant, seq: r.seq, when: r.when, digest: r.digest, ...(r.leaf !== undefined ? { leaf: r.leaf } : {}) } },
  };
}

/** A record as an OCSF 1.3.0 API Activity event (the table above). */
export function toOcsf(r: ExportRecord): object {
  return r.kind === 'event' ? eventOcsf(r) : r.kind === 'skipped' ? skippedOcsf(r) : checkpointOcsf(r);
}

/** The record an OCSF event made by `toOcsf` carries; null for any other object. */
export function fromOcsf(o: unknown): ExportRecord | null {
  if (!isObject(o) || o.class_uid !== CLASS.class_uid || !isObject(o.metadata) || !isObject(o.unmapped)) return null;
  const { metadata: m, unmapped: u } = o;
  if (!isObject(m.product) || m.product.name !== PRODUCT.name) return null;
  if (isObject(u.checkpoint)) return validCheckpoint(u.checkpoint, u.timestamp);
  if (isObject(u.skipped)) return validSkipped(u.skipped);
  if (!isObject(o.api) || typeof o.time !== 'number' || o.time % 1000 !== 0) return null;
  const status = o.status_id === 1 ? 'ok' : o.status_id === 2 ? 'error' : null;
  if (!status || (o.status_detail !== undefined && typeof o.status_detail !== 'string')) return null;
  return validEvent({
    tenant: u.tenant,
    seq: m.sequence,
    uuid: m.uid,
    when: o.time / 1000,
    title: o.api.operation,
    status,
    msg: o.status_detail ?? null,
    actor: u.actor,
    record: u.record,
    mode: u.mode,
    app: u.app,
    detailsdigest: u.detailsdigest,
    details: u.details,
    link: u.link,
    digest: u.digest,
  });
}
