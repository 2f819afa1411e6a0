// Runs one operation as a pipeline that reads top to bottom: parse its input, admit the caller (admission.ts), run
// it in its transaction style, write its audit event, and shape the answer as the caller may see it.
import type { z } from 'zod';
import type { OpDefinition, OpContext } from './define.js';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import { BAD_REQUEST_MSG, draftEvent, type AuditDraft, type AuditNote, type QueuedWrite, type SealedAhead } from '../vault/audit/trail.js';
import { nowSeconds } from '../vault/durations.js';
import { TenantKeyUnavailableError, UnavailableError, VaultError, badRequest, Messages } from '../errors.js';
import { fromDatabaseError } from '../store/errors.js';
import type { Stores } from '../store/stores.js';
import type { Scope } from '../vault/scope.js';
import { admit, admitFromHeader, masked, type Admission } from './admission.js';
import { Gate } from './gate.js';
import { MAX_DEPTH, tooDeep } from '../vault/documents.js';
import { actorOf, type Actor, type RequestFacts } from '../vault/audit/actor.js';
import { mayBeHousekeeping } from './housekeeping.js';
import type { PrivacyEventDraft } from '../vault/privacy/events.js';
import { inOperationSpan } from './operation-span.js';

/** An authenticated call: who, in which tenant, and what the http layer knows of the request. */
export interface Caller {
  principal: Principal;
  tenantId: number;
  request: RequestFacts;
}

/** A UTF-16 surrogate not part of a pair: in a `u` regular expression a well-formed pair is one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/** `null` means absent; numeric strings are accepted for every `*id` field (the SDKs send both). */
export function normaliseBody(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    // `__proto__` (JSON.parse makes it an own key) would set the copy's prototype, and fields would be read from it.
    if (value === null || key === '__proto__') continue;
    // Top-level strings are names, ids and lookups, stored as text: PostgreSQL text cannot hold a NUL.
    if (typeof value === 'string' && value.includes('\u0000')) throw badRequest(`Invalid API request parameter: ${key} must not contain NUL characters`);
    // A lone surrogate is stored and hashed as U+FFFD: two different identities would find the same person.
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw badRequest(`Invalid API request parameter: ${key} must be valid Unicode text`);
    out[key] = key.endsWith('id') && typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** One 400 naming the fields: missing ones together, else the first invalid one. */
export function validationMessage(error: z.ZodError, body: unknown): string {
  const missing = error.issues.filter((i) => valueAt(body, i.path) === undefined).map((i) => i.path.join('.'));
  if (missing.length) return `Missing API request parameters: ${[...new Set(missing)].join(', ')}`;
  const first = error.issues[0]!;
  const contractual = Object.values(Messages) as string[];
  if (contractual.includes(first.message) || first.message.startsWith('Invalid API request parameter')) return first.message;
  const path = first.path.join('.') || 'body';
  return `Invalid API request parameter: ${path}: ${first.message.replace(/^Invalid input: /, '')}`;
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v = body;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * request_metadata is kept in every call's audit event (sealed): at most this many bytes of JSON, so that what one
 * call writes to the trail, and what reads of the trail then hash and carry, stays small whatever the body may hold.
 */
const METADATA_BYTES = 64 * 1024;

function tooLarge(metadata: unknown): boolean {
  return metadata !== undefined && metadata !== null && Buffer.byteLength(JSON.stringify(metadata) ?? '') > METADATA_BYTES;
}

/** The body as the operation's schema reads it, or a 400 naming the field. */
function parseInput(op: OpDefinition, rawBody: Record<string, unknown>): { input: unknown; metadata: Record<string, unknown> } {
  const requestMetadata = rawBody.request_metadata;
  if (requestMetadata !== undefined && requestMetadata !== null && (typeof requestMetadata !== 'object' || Array.isArray(requestMetadata))) {
    throw badRequest('Invalid API request parameter: request_metadata: expected object');
  }
  // Every value a request carries is bounded in depth before anything walks it.
  const deep = tooDeep(rawBody);
  if (deep) throw badRequest(`Invalid API request parameter: ${deep}: nested deeper than ${MAX_DEPTH} levels`);
  if (tooLarge(requestMetadata)) throw badRequest(`Invalid API request parameter: request_metadata: larger than ${METADATA_BYTES / 1024} KiB`);
  const body = normaliseBody(rawBody);
  const parsed = op.input.safeParse(body);
  if (!parsed.success) throw badRequest(validationMessage(parsed.error, body));
  return { input: parsed.data, metadata: (requestMetadata as Record<string, unknown> | undefined) ?? {} };
}

/**
 * Serves only once the tokenizer's keyring is known to fit this database (api/vault/keyring-check.ts): a check not
 * yet done (the tokenizer was not up at start) is done now; a tokenizer still away is a 503.
 */
async function checkKeyring(services: Services, tenantId: number, op: OpDefinition): Promise<void> {
  // A refusal is checked again by /readyz only: requests do not each rerun the check.
  let state = services.keyringCheck.state;
  if (state === 'unchecked') state = await services.keyringCheck.check().catch(() => 'unchecked' as const);
  if (state === 'mismatch') throw new UnavailableError(Messages.keyringMismatch);
  if (state === 'unchecked') throw new UnavailableError('The tokenizer is unavailable');
  // A tenant whose own key-encryption key was revoked fails closed, whatever the call: nothing of it is served.
  if (!op.servedWhenKeyRevoked && services.tenantKeks.failsClosed(tenantId)) throw new TenantKeyUnavailableError();
  // A tenant whose data is still in the legacy format (api/vault/jobs/legacy.ts) waits, retryable, rather than be read
  // wrongly; cross-tenant operations of the main tenant wait for every tenant, but those that show the upgrade.
  if (state === 'migrating' && !op.servedDuringUpgrade) {
    if (services.keyringCheck.isMigrating(tenantId) || (op.access === 'mainTenant' && services.keyringCheck.anyMigrating)) {
      throw new UnavailableError(Messages.legacyMigrating);
    }
  }
}

/**
 * Public operations: no credential, no audit event (the contract's portal endpoints); input rules as usual.
 * `spendTenantCall` spends one of the tenant's public calls (429 when none is left), unless the input names an
 * attempt under way (op.attemptUnderWay), which is served through a flood of the tenant's other calls.
 */
export function executePublicOperation(
  services: Services,
  op: OpDefinition,
  tenant: { tenantId: number; named: boolean; address?: string; request: RequestFacts },
  rawBody: Record<string, unknown>,
  spendTenantCall?: () => Promise<void>,
): Promise<Record<string, unknown>> {
  return inOperationSpan(op.name, tenant.tenantId, () => runPublic(services, op, tenant, rawBody, spendTenantCall));
}

async function runPublic(...[services, op, tenant, rawBody, spendTenantCall]: Parameters<typeof executePublicOperation>): Promise<Record<string, unknown>> {
  const { input } = parseInput(op, rawBody);
  if (spendTenantCall && !(op.attemptUnderWay && (await op.attemptUnderWay(input, services, tenant.tenantId)))) await spendTenantCall();
  // An operation that knows its tenant from its input acts there; the request's tenant is its fallback.
  const tenantId = (op.tenantOf && (await op.tenantOf(input, services))) ?? tenant.tenantId;
  await checkKeyring(services, tenantId, op);
  await services.tokenizer.prepare(tenantId);
  const principal: Principal = { credentialId: '', kind: 'public', tenantId, roleId: null, userToken: null, expiresAt: null };
  const stores = services.db.stores(tenantId);
  const actor: Actor = { principal, rolename: null, request: tenant.request, housekeepingAllowed: false };
  const event = new ReadEvent();
  const ctx: OpContext = { services, principal, tenantId, stores, audit: {}, now: nowSeconds(), gate: Gate.open(services, principal, stores), event, tenantNamed: tenant.named, clientAddress: tenant.address, actor };
  const result = await op.run({ input, ctx });
  await event.commit(services, stores, ctx.now);
  return result;
}

export function executeOperation(services: Services, op: OpDefinition, caller: Caller, rawBody: Record<string, unknown>): Promise<Record<string, unknown>> {
  return inOperationSpan(op.name, caller.tenantId, () => runOperation(services, op, caller, rawBody));
}

async function runOperation(services: Services, op: OpDefinition, caller: Caller, rawBody: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { principal, tenantId } = caller;
  // A tokenizer whose keyring does not match the database would answer every sealed read with a 500.
  await checkKeyring(services, tenantId, op);
  await services.tokenizer.prepare(tenantId);
  const now = nowSeconds();
  const note: AuditNote = {};
  const actor = await actorOf(services.roles, principal, caller.request, mayBeHousekeeping(op));
  // request_metadata too deep to take is left out of the event of its refusal: the event is written all the same.
  const metadata = tooDeep(rawBody.request_metadata) || tooLarge(rawBody.request_metadata) ? undefined : rawBody.request_metadata;
  const audited = (status: 'ok' | 'error', msg?: string, sealedMsg?: string) =>
    draftEvent(op.name, actor, note, { status, ...(msg === undefined ? {} : { msg }), ...(sealedMsg === undefined ? {} : { sealedMsg }) }, { now, requestMetadata: metadata });
  try {
    const admission = await admit(services, op, principal, tenantId, metadataOf(rawBody));
    const { input } = parseInput(op, rawBody);
    return await run({ services, op, principal, tenantId, input, admission, audit: note, now, actor, event: () => audited('ok') });
  } catch (caught) {
    const err = fromDatabaseError(caught);
    // Failed calls are audited too; a failure to audit them must not hide the original error.
    const msg = err instanceof VaultError ? err.message : Messages.internal;
    // A 400's message may echo the request (a path, a field name, a value, a person's email): sealed, not in clear.
    const event = err instanceof VaultError && err.status === 400 ? audited('error', BAD_REQUEST_MSG, msg) : audited('error', msg);
    await services.audit.record(tenantId, event).catch((auditErr: unknown) => {
      services.log.error({ err: { message: (auditErr as Error).message }, op: op.name }, 'audit of a failed call failed');
    });
    throw err;
  }
}

/**
 * The gate's verdict from the header alone, for a call about to send a large body: refused here, it is refused
 * (and audited) before a large-body slot is taken or a byte of its body read. See admitFromHeader.
 */
export async function admitBeforeBody(services: Services, op: OpDefinition, caller: Caller): Promise<void> {
  const { principal, tenantId } = caller;
  try {
    await admitFromHeader(services, op, principal, tenantId);
  } catch (caught) {
    const err = fromDatabaseError(caught);
    const msg = err instanceof VaultError ? err.message : Messages.internal;
    const actor = await actorOf(services.roles, principal, caller.request);
    await services.audit.record(tenantId, draftEvent(op.name, actor, {}, { status: 'error', msg }, { now: nowSeconds() })).catch((auditErr: unknown) => {
      services.log.error({ err: { message: (auditErr as Error).message }, op: op.name }, 'audit of a failed call failed');
    });
    throw err;
  }
}

/** request_metadata as conditions read it; a wrong shape is refused when the input is parsed. */
function metadataOf(rawBody: Record<string, unknown>): Record<string, unknown> {
  const m = rawBody.request_metadata;
  return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
}

/** One admitted call: what running it and writing its audit event need. */
interface Call {
  services: Services;
  op: OpDefinition;
  principal: Principal;
  tenantId: number;
  input: unknown;
  admission: Admission;
  audit: AuditNote;
  now: number;
  actor: Actor;
  event: () => ReturnType<typeof draftEvent>;
}

/**
 * The operation in its transaction style, with its audit event: a write's event commits in its transaction; a
 * read's is batched with others and awaited; one that manages its own transactions writes its event once done.
 */
async function run(call: Call): Promise<Record<string, unknown>> {
  return call.op.transaction === 'write' ? runWrite(call) : runRead(call);
}

async function runWrite(call: Call): Promise<Record<string, unknown>> {
  const { services, op, tenantId, input } = call;
  let queued: QueuedWrite = [];
  let published = false;
  // Tenant operations run as the tenant's database role; admin and main-tenant ones reach global tables.
  const result = await services.db.write(tenantId, op.access === 'tenant', async (tx) => {
    const event = new WriteEvent(services, tx, call.event);
    const ctx = contextOf(call, tx, event);
    const result = await op.run({ input, ctx });
    ctx.gate.assertJudged();
    // The event is the write's last statement: it travels with COMMIT.
    queued = await event.queue(ctx);
    published = event.published;
    return masked(result, ctx.gate.fields);
  });
  if (published) services.outbox.committed(tenantId);
  // Committed with its event queued; answered once the event is in the chain.
  await services.audit.chained(tenantId, queued);
  return result;
}

async function runRead(call: Call): Promise<Record<string, unknown>> {
  const { services, op, tenantId, input } = call;
  const stores = services.db.stores(tenantId);
  const published = new ReadEvent(call);
  const ctx = contextOf(call, stores, published);
  const result = await op.run({ input, ctx });
  ctx.gate.assertJudged();
  try {
    // Its privacy events (a detokenization's count) are committed before its audit event, and both before the answer.
    await published.commit(services, stores, ctx.now);
    await published.record(ctx);
  } catch (err) {
    if (op.undo) await op.undo({ input, result, ctx });
    throw err;
  }
  return masked(result, ctx.gate.fields);
}

/**
 * A read's event: drafted once the read is done, unless the operation said its note was final (`final`): its details
 * are then sealed from there on, in the same tokenizer message as what the read opens next (a profile). Either way
 * the keys the read used are given with it, not read again. Its privacy events are published in a statement of their
 * own once it has run. Public operations (no `call`) have no audit event.
 */
class ReadEvent {
  private readonly drafts: PrivacyEventDraft[] = [];
  private draft: AuditDraft | undefined;
  private ahead: SealedAhead | undefined;

  constructor(private readonly call?: Call) {}

  final(scope: Scope): void {
    if (!this.call || this.draft) return;
    this.draft = this.call.event();
    this.ahead = this.call.services.audit.sealAhead(scope.stores, this.draft, this.call.services.keys.knownIn(scope), false);
  }

  /** Its audit event, with what was readied for it; settles once it is stored. */
  async record(scope: Scope): Promise<void> {
    const { services, tenantId, event } = this.call!;
    const known = services.keys.knownIn(scope);
    // A seal ahead that failed is done again in the batch (which says so if the tokenizer is gone).
    const sealed = await this.ahead?.sealed.catch(() => undefined);
    const prelink = sealed && (await this.ahead?.prelink?.catch(() => undefined));
    await services.audit.record(tenantId, this.draft ?? event(), { sealed, known, prelink });
  }

  publish(...events: PrivacyEventDraft[]): void {
    this.drafts.push(...events);
  }

  /** Writes the events published, if any, in one statement, and tells the dispatcher. */
  async commit(services: Services, stores: Stores, now: number): Promise<void> {
    if (!this.drafts.length) return;
    await services.outbox.publish(stores, this.drafts, now);
    services.outbox.committed(stores.tenantId);
  }
}

/**
 * A write's event: queued in its transaction as its last statement, and sealed ahead once the operation says its
 * note is final (its details then ride with the operation's own tokenizer calls).
 */
class WriteEvent {
  private draft: AuditDraft | undefined;
  private ahead: SealedAhead | undefined;
  private readonly privacy: PrivacyEventDraft[] = [];

  constructor(
    private readonly services: Services,
    private readonly stores: Stores,
    private readonly drafted: () => AuditDraft,
  ) {}

  final(scope: Scope): void {
    this.draft ??= this.drafted();
    this.ahead ??= this.services.audit.sealAhead(this.stores, this.draft, this.services.keys.knownIn(scope));
  }

  publish(...events: PrivacyEventDraft[]): void {
    this.privacy.push(...events);
  }

  /** Whether the write published privacy events (they commit with it). */
  get published(): boolean {
    return this.privacy.length > 0;
  }

  queue(scope: Scope): Promise<QueuedWrite> {
    const known = this.services.keys.knownIn(scope);
    const privacy = this.services.outbox.batch(this.privacy, scope.now);
    return this.services.audit.writeInTx(this.stores, [this.draft ?? this.drafted()], { known, ahead: this.ahead, commit: true, privacy });
  }
}

function contextOf(call: Call, stores: Stores, event: OpContext['event']): OpContext {
  const { services, principal, tenantId, admission, audit, now, actor } = call;
  return { services, principal, tenantId, stores, gate: new Gate(admission, stores), audit, event, now, actor };
}
