// Runs one operation: validate, authorise, run (in a transaction for writes), write its audit event, answer.
import type { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OpDefinition, OpContext } from './define.js';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import { draftEvent, type AuditNote } from '../vault/audit.js';
import { nowSeconds } from '../vault/durations.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import { VaultError, badRequest, forbidden, Messages } from '../http/errors.js';

/** `null` means absent; numeric strings are accepted for every `*id` field (the SDKs send both). */
export function normaliseBody(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === null) continue;
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

/** Public operations: no credential, no audit event (the contract's portal endpoints); input rules as usual. */
export async function executePublicOperation(services: Services, op: OpDefinition, tenantId: number, rawBody: Record<string, unknown>) {
  const body = normaliseBody(rawBody);
  const parsed = op.input.safeParse(body);
  if (!parsed.success) throw badRequest(validationMessage(parsed.error, body));
  const principal: Principal = { credentialId: '', kind: 'public', tenantId, roleId: null, userToken: null, expiresAt: null };
  const ctx: OpContext = { services, principal, tenantId, em: services.db.forTenant(tenantId), inTransaction: false, audit: {}, now: nowSeconds() };
  return op.run({ input: parsed.data, ctx });
}

export async function executeOperation(
  services: Services,
  op: OpDefinition,
  principal: Principal,
  tenantId: number,
  rawBody: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const now = nowSeconds();
  const requestMetadata = rawBody.request_metadata;
  const note: AuditNote = {};
  const audited = (status: 'ok' | 'error', msg?: string) =>
    draftEvent(op.name, principal, note, msg === undefined ? { status } : { status, msg }, requestMetadata, now);

  try {
    if (op.access === 'mainTenant' && (tenantId !== MAIN_TENANT_ID || principal.tenantId !== MAIN_TENANT_ID)) throw forbidden();
    if (requestMetadata !== undefined && (typeof requestMetadata !== 'object' || Array.isArray(requestMetadata))) {
      throw badRequest('Invalid API request parameter: request_metadata: expected object');
    }
    const body = normaliseBody(rawBody);
    const parsed = op.input.safeParse(body);
    if (!parsed.success) throw badRequest(validationMessage(parsed.error, body));
    if (op.effect === 'write') {
      return await services.db.forTenant(tenantId).transactional(async (tx) => {
        const ctx: OpContext = { services, principal, tenantId, em: tx as EntityManager, inTransaction: true, audit: note, now };
        const result = await op.run({ input: parsed.data, ctx });
        await services.audit.writeInTx(tx as EntityManager, tenantId, [audited('ok')]);
        return result;
      });
    }
    if (op.effect === 'admin') {
      const ctx: OpContext = { services, principal, tenantId, em: services.db.forTenant(tenantId), inTransaction: false, audit: note, now };
      const result = await op.run({ input: parsed.data, ctx });
      await services.audit.record(tenantId, audited('ok'));
      return result;
    }
    // Reads fork their manager only if they use it: most go through shared, coalesced statements.
    let em: EntityManager | undefined;
    const ctx: OpContext = {
      services,
      principal,
      tenantId,
      get em() {
        return (em ??= services.db.forTenant(tenantId));
      },
      inTransaction: false,
      audit: note,
      now,
    };
    const result = await op.run({ input: parsed.data, ctx });
    await services.audit.record(tenantId, audited('ok'));
    return result;
  } catch (err) {
    // Failed calls are audited too; a failure to audit them must not hide the original error.
    const msg = err instanceof VaultError ? err.message : Messages.internal;
    await services.audit.record(tenantId, audited('error', msg)).catch((auditErr: unknown) => {
      services.log.error({ err: { message: (auditErr as Error).message }, op: op.name }, 'audit of a failed call failed');
    });
    throw err;
  }
}
