// The privacy events the vault publishes (docs/events.md): their types, what each carries (the person's token, ids,
// briefs, field names, counts and times: never a profile value, an email, a phone, a login or file content), and
// their CloudEvents 1.0 form (JSON, structured mode) as every sink sends it.
import { randomUUID } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import type { PrivacyEventRow } from '../../store/privacy-events.js';

export const EVENT_TYPES = [
  'person.created',
  'person.updated',
  'person.erased',
  'person.restored',
  'consent.accepted',
  'consent.withdrawn',
  'consent.expired',
  'appdata.updated',
  'request.created',
  'request.approved',
  'request.rejected',
  'token.detokenized',
  'audit.checkpoint',
  'erasure.overdue',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What an event carries besides its person: typed so that no value of a person can be put in by mistake. Field names
 * are the profile's own keys (dotted for nested ones); a brief is a legal basis's name; the rest are ids and counts.
 */
export interface EventData {
  fields?: string[];
  /** Changed leaves under keys that are not identifiers: counted, never named. */
  unnamed?: number;
  brief?: string;
  app?: string;
  request?: string;
  action?: string;
  count?: number;
  seq?: number;
  /** A checkpoint's public digest (hex). */
  digest?: string;
  subscription?: string;
  erasure?: string;
}

/** An event as an operation or a job publishes it (`ctx.event.publish`). */
export interface PrivacyEventDraft {
  type: EventType;
  /** The person's token; null for an event about no one (a checkpoint, a bulk count). */
  person: string | null;
  data: EventData;
}

/** The most field names one `person.updated` lists (a huge patch names the first ones and says how many). */
export const MAX_FIELDS = 100;

/**
 * A key that may be named: an identifier (a letter or `_`, then letters, digits, `_` and `-`, at most 64). Keys are the
 * tenant's to choose, and a profile keyed by email or phone (a map of contacts) would otherwise send them out: a key
 * that is not an identifier is never named, only counted (`unnamed`).
 */
const NAMEABLE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/**
 * The names of the fields whose value differs between two profiles: leaves as dotted paths (an array is one field),
 * sorted, at most MAX_FIELDS (then `count` says how many changed); leaves under a key that is not an identifier are
 * counted in `unnamed`, never named.
 */
export function changedFields(before: unknown, after: unknown): { fields: string[]; count?: number; unnamed?: number } {
  const a = leaves(before);
  const b = leaves(after);
  const changed = [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).map((k) => JSON.parse(k) as string[]);
  const named = changed.filter((path) => path.every((segment) => NAMEABLE.test(segment))).map((path) => path.join('.')).sort();
  const unnamed = changed.length - named.length;
  return {
    fields: named.slice(0, MAX_FIELDS),
    ...(named.length > MAX_FIELDS ? { count: named.length } : {}),
    ...(unnamed ? { unnamed } : {}),
  };
}

/** Whether `changedFields` found any change, named or only counted: either way the person changed, and is told of. */
export function anyChanged(changed: { fields: string[]; unnamed?: number }): boolean {
  return changed.fields.length > 0 || (changed.unnamed ?? 0) > 0;
}

/** A document's leaves by path (its keys as a JSON array), each as its JSON text (an array or an empty object is one leaf). */
function leaves(doc: unknown, path: string[] = [], out = new Map<string, string>()): Map<string, string> {
  if (typeof doc === 'object' && doc !== null && !Array.isArray(doc) && Object.keys(doc).length) {
    for (const [key, value] of Object.entries(doc)) leaves(value, [...path, key], out);
  } else if (path.length && doc !== undefined) {
    out.set(JSON.stringify(path), JSON.stringify(doc));
  }
  return out;
}

/** The events of one call as `events_publish` takes them: JSON rows, stamped with a uuid and the time (ms). */
export function publishRows(drafts: readonly PrivacyEventDraft[], nowMs: number): string {
  return JSON.stringify(drafts.map((d) => ({ uuid: randomUUID(), type: d.type, time: nowMs, person: d.person, data: d.data })));
}

/** Where a tenant's events come from, as the CloudEvents `source` says it. */
export function sourceOf(tenantId: number): string {
  return `/strongroom/tenants/${tenantId}`;
}

/**
 * An event in CloudEvents 1.0 structured mode: `id` its uuid (receivers de-duplicate by it), `subject` the person's
 * token, `sequence` its place in the tenant's outbox, `data` the tenant, the person and what the event carries.
 */
export function cloudEventBody(tenantId: number, e: PrivacyEventRow): string {
  // Not validated against the CloudEvents schema here (a fifth of a delivery round's work): every attribute is made
  // by this function from typed columns, and the unit test validates what it makes, strictly, over generated rows.
  const event = new CloudEvent({
    id: e.uuid,
    source: sourceOf(tenantId),
    type: e.type,
    time: new Date(e.time).toISOString(),
    datacontenttype: 'application/json',
    ...(e.person ? { subject: e.person } : {}),
    sequence: String(e.id),
    data: { tenant: tenantId, ...(e.person ? { person: e.person } : {}), ...e.data },
  }, false);
  return JSON.stringify(event);
}

/** A person's erasure: `request` names the request that asked for it, when one did. */
export function erased(token: string, request?: string): PrivacyEventDraft {
  return { type: 'person.erased', person: token, data: request ? { request } : {} };
}

/** A person's request opened (`action`: its type, e.g. `forget-me`). */
export function requestCreated(token: string, request: string, action: string): PrivacyEventDraft {
  return { type: 'request.created', person: token, data: { request, action } };
}
