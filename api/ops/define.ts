// What an operation is: a name, who may call it, how it touches data, its input schema and its handler.
import type { z } from 'zod';
import type { Gate } from './gate.js';
import type { Services } from '../vault/services.js';
import type { Principal } from '../vault/credentials.js';
import type { AuditNote } from '../vault/audit/trail.js';
import type { Stores } from '../store/stores.js';
import type { Scope } from '../vault/scope.js';
import type { Actor } from '../vault/audit/actor.js';
import type { PrivacyEventDraft } from '../vault/privacy/events.js';

/**
 * public: no token; tenant: any credential of the resolved tenant (role xtokens as their policies allow);
 * admin: the root or a tenant admin token of the resolved tenant; mainTenant: main-tenant admins only.
 */
export type Access = 'public' | 'tenant' | 'admin' | 'mainTenant';

export interface OpContext {
  services: Services;
  principal: Principal;
  tenantId: number;
  /**
   * Every store of the tenant (and the global ones): the way to the database. In the operation's transaction for
   * writes, which commit with their audit event (`stores.sql.inTransaction`).
   */
  stores: Stores;
  /**
   * The caller's gate (gate.ts): judges each person the operation reaches (users.findRow asks it), the people a list
   * would answer, and any further action on the person; read-only `fields` is what the answer may show.
   */
  gate: Gate;
  /** Public calls: whether the request named a tenant (header or Host), whether or not one has that name. */
  tenantNamed?: boolean;
  /** Public calls: the client's address, as the limits see it (api/http/client-address.ts). */
  clientAddress?: string;
  /** Who calls, as the call's audit events record it (api/vault/audit/actor.ts). */
  actor: Actor;
  /** What the operation tells its audit event: whose record, how it was named, before and after. */
  audit: AuditNote;
  /**
   * The call's event. An operation says its note is final (`ctx.event.final(ctx)`: set no more of it after): the
   * event's details are sealed from now on, in the same tokenizer round trip as whatever the operation seals or
   * opens next (calls of one turn travel together). Optional: an event not sealed ahead is sealed at the end.
   */
  event: {
    final(scope: Scope): void;
    /**
     * Privacy events of the call (api/vault/privacy/events.ts): a write's commit with it, in the statement that queues
     * its audit event; a read's are written once it has run, before its answer.
     */
    publish(...events: PrivacyEventDraft[]): void;
  };
  now: number;
}

/**
 * The kinds of a person's data: what a policy's resources name (`users.profile…`, `users.appdata`,
 * `users.agreement`/`users.consent`, `users.group`, `users.session`, `users.file`, `users.request`, `users.audit`).
 */
export const KINDS = ['profile', 'appdata', 'agreement', 'group', 'session', 'file', 'request', 'audit'] as const;
export type Kind = (typeof KINDS)[number];

/**
 * What the admission gate needs to know about an operation, declared on it: who may call it, what personal data
 * it carries, how its answer is shaped and how it runs. Nothing about an operation lives in a list elsewhere.
 */
export interface OpDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  /** What it is for, in one line: the API reference's summary. */
  summary: string;
  access: Access;
  /** `own`: a login xtoken may call it, on its own record (and others' as its group roles' policies allow). */
  login?: 'own';
  /** Every kind of personal data it reads or changes; a Deny of any of them refuses it. Empty: none. */
  kinds: readonly Kind[];
  /** Its answer carries profiles only as `profile` (or `rows[].profile`), which a partial grant masks. */
  masks?: true;
  /**
   * Its answer shows profile values (lists, reports, audit details): for a role, at most what the role's UserGet
   * shows of the person. Its grant is its own and UserGet's together (ops/admission.ts), masked where it `masks`,
   * else refused unless both show the whole profile.
   */
  showsProfile?: true;
  /**
   * It reads profile values for the caller to do its work (a patch's test, copy and move; a share's fields): it may
   * read only what the caller's UserGet shows whole (ops/profile-reads.ts), and PolicyExplain shows that as `reads`.
   */
  readsProfile?: true;
  /**
   * `person`: every person it reaches is found through ops/subject.ts, where the role's conditions about the person
   * are judged. `list`: it lists people, and passes every one it would answer through `ctx.gate.list`. A role whose
   * policies ask about the person is refused every other operation that carries personal data: judged on the data
   * or not at all, never on a guess.
   */
  judges?: 'person' | 'list';
  /**
   * write: runs in one transaction together with its audit event. read: its event is batched and awaited.
   * own: manages its own transactions (schema changes run on the migrator's connection); its event is written
   * once it has succeeded.
   */
  transaction: 'read' | 'write' | 'own';
  /**
   * Its body may carry a whole file or a bulk of records: it may be as large as FileCreate's limit (from
   * STRONGROOM_FILE_MAX_BYTES), and such bodies count against STRONGROOM_LARGE_BODIES.
   */
  largeBody?: true;
  /**
   * A read the console makes for itself, about the vault rather than anyone in it: a call marked
   * `X-Strongroom-Purpose: housekeeping` is left out of the audit listings by default. Only reads that carry no
   * kind of personal data may say so (ops/housekeeping.ts), and a call that names a person is never housekeeping.
   */
  housekeeping?: true;
  /** Served while tenants' data is upgraded from the legacy format (it shows the upgrade, reads nothing sealed). */
  servedDuringUpgrade?: true;
  /**
   * Served for a tenant whose own key-encryption key is revoked or lost: the call reads and writes nothing sealed under
   * the tenant's keys (a public call that answers alike for every tenant name, so it must not tell a revoked one apart).
   */
  servedWhenKeyRevoked?: true;
  /**
   * Public calls counted per client address and refused (429) over the limit. `true`: the login calls, also counted
   * per tenant named. `shared`: SharedRecordGet, whose misses also count against the address's refusal budget.
   */
  rateLimited?: true | 'shared';
  /** A login call that names an attempt under way (a live loginid): served through a flood of its tenant's calls. */
  attemptUnderWay?: (input: z.output<S>, services: Services, tenantId: number) => Promise<boolean>;
  /**
   * A public operation whose tenant follows from its input (a shared record's uuid) rather than from the request's
   * tenant name: the tenant it belongs to, or null for none.
   */
  tenantOf?: (input: z.output<S>, services: Services) => Promise<number | null>;
  input: S;
  /**
   * What it answers inside the envelope (`{ status: 'ok', ...output }`): the API reference's response schema, checked
   * against real answers by test/integration/openapi-contract.test.ts. Not enforced at run time.
   */
  output: z.ZodObject;
  /** A request the API accepts, shown in the reference (the contract test sends it). */
  example: z.input<S>;
  run(args: { input: z.output<S>; ctx: OpContext }): Promise<Record<string, unknown>>;
  /**
   * `own` operations: takes back what `run` made when its audit event cannot be written (a retryable 503), so the
   * caller's retry finds nothing of the refused call. Nothing is answered that was not audited.
   */
  undo?(args: { input: z.output<S>; result: Record<string, unknown>; ctx: OpContext }): Promise<void>;
}

export function defineOp<S extends z.ZodType>(def: OpDefinition<S>): OpDefinition<S> {
  return def;
}

type Transaction = OpDefinition['transaction'];
type Facts = Pick<OpDefinition, 'access' | 'login' | 'kinds' | 'judges' | 'transaction'>;

// The facts most operations share, named for what the operation is; a definition spreads one and states the rest
// (masks, readsProfile, largeBody…) beside it.

/** The tenant's own configuration (legal bases, activities, tokens, groups…), for its admins and allowed roles. */
export function tenantOp(transaction: Transaction, kinds: readonly Kind[] = []): Facts {
  return { access: 'tenant', kinds, transaction };
}

/** The vault's own administration (tenants, roles, policies, System operations): main-tenant admins only. */
export function mainTenantOp(transaction: Transaction, kinds: readonly Kind[] = []): Facts {
  return { access: 'mainTenant', kinds, transaction };
}

/**
 * One person's data, the person found and judged through ops/subject.ts. `own`: the person's own login xtoken may
 * call it too (and reach others only as its group roles' policies allow).
 */
export function personOp(transaction: Transaction, kinds: readonly Kind[], own?: 'own'): Facts {
  return { access: 'tenant', ...(own ? { login: own } : {}), kinds, judges: 'person', transaction };
}
