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
  const changed: string[][] = [];
  changedLeaves(before, after, [], changed);
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

/** An object with members: its leaves are below it (an array or an empty object is a leaf itself). */
function isBranch(doc: unknown): doc is Record<string, unknown> {
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) && Object.keys(doc).length > 0;
}

/**
 * The paths of the leaves whose JSON text differs between `a` and `b` (a leaf on one side only differs), walking
 * both together: only arrays and empty objects, leaves on both sides, are turned to text to be compared.
 */
function changedLeaves(a: unknown, b: unknown, path: string[], out: string[][]): void {
  const branchA = isBranch(a);
  const branchB = isBranch(b);
  if (branchA && branchB) {
    // The path of a member is made only for a member that differs: most of a profile is the same on both sides.
    for (const key of Object.keys(a)) {
      const value = a[key];
      const other = Object.hasOwn(b, key) ? b[key] : undefined;
      if (value !== other) changedLeaves(value, other, [...path, key], out);
    }
    for (const key of Object.keys(b)) if (!Object.hasOwn(a, key) && b[key] !== undefined) changedLeaves(undefined, b[key], [...path, key], out);
    return;
  }
  if (branchA || branchB) {
    // A branch against a leaf (or nothing): every leaf below the branch, and the leaf itself.
    allLeaves((branchA ? a : b) as Record<string, unknown>, path, out);
    if (path.length && (branchA ? b : a) !== undefined) out.push(path);
    return;
  }
  if (!path.length || a === b) return;
  if (a === undefined || b === undefined || JSON.stringify(a) !== JSON.stringify(b)) out.push(path);
}

/** The paths of every leaf of `doc` (a branch) under `path`. */
function allLeaves(doc: Record<string, unknown>, path: string[], out: string[][]): void {
  for (const [key, value] of Object.entries(doc)) {
    if (isBranch(value)) allLeaves(value, [...path, key], out);
    else if (value !== undefined) out.push([...path, key]);
  }
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
  // What the event carries never names another tenant or person, nor is anything but an object: a row put into the
  // outbox by other hands (the tenant's database role may add to it) says no more than it could by its own columns.
  const { tenant: _tenant, person: _person, ['__proto__']: _proto, constructor: _constructor, prototype: _prototype, ...carried } =
    e.data !== null && typeof e.data === 'object' && !Array.isArray(e.data) ? e.data : {};
  const event = new CloudEvent({
    id: e.uuid,
    source: sourceOf(tenantId),
    type: e.type,
    time: new Date(e.time).toISOString(),
    datacontenttype: 'application/json',
    ...(e.person ? { subject: e.person } : {}),
    sequence: String(e.id),
    data: { tenant: tenantId, ...(e.person ? { person: e.person } : {}), ...carried },
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
