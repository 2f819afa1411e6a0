// Persons' data keys as the api holds them: wrapped, read from the key table once per request and per person.
// A person without a live key reads as erased everywhere: that is what erasure means (ARCHITECTURE, "Keys").
import type { Database } from '../store/database.js';
import type { PersonKey, TokenizerClient } from '../tokenizer-client.js';
import { notFound, Messages } from '../errors.js';
import type { Scope } from './scope.js';

export type { PersonKey } from '../tokenizer-client.js';

/** The person key of a user row read with its key (UserStore reads rows only while their key lives). */
export function keyOfRow(row: { token: string; wrappedKey: Buffer }): PersonKey {
  return { subject: row.token, wrapped: row.wrappedKey };
}

/**
 * The subject of the tenant's own data key (a nil UUID, never a person's token): tenant-level records (tokens,
 * sessions naming nobody, audit details about no person) are sealed under it, so a master-key rotation rewraps
 * it like any person's key and leaves those records as they are, and old master versions can be retired.
 */
export const TENANT_SUBJECT = '00000000-0000-0000-0000-000000000000';

export class SubjectKeys {
  // Tenants' own data keys, wrapped. Never erased, and tenant ids are never reused: kept for the process's life.
  private readonly tenantKeys = new Map<number, Buffer>();

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
  ) {}

  /**
   * Gives every listed tenant its own data key if it has none yet (at start, and when a tenant is made), and reads
   * each one's current wrapping into the cache (again after a rotation rewrapped them). Outside any transaction:
   * a key is never used before it is stored for good.
   */
  /**
   * A new tenant made ready to serve: its salt known to the tokenizer now, outside any transaction (the cross-tenant
   * System operations reach it inside theirs), and its own data key made.
   */
  async prepareTenant(tenantId: number, now: number): Promise<void> {
    await this.tokenizer.prepare(tenantId);
    await this.ensureTenantKeys([tenantId], now);
  }

  async ensureTenantKeys(tenantIds: number[], now: number): Promise<void> {
    for (const id of tenantIds) {
      const store = this.db.stores(id).subjectKeys;
      let wrapped = (await store.get([TENANT_SUBJECT])).get(TENANT_SUBJECT);
      if (!wrapped) {
        await this.tokenizer.prepare(id);
        const made = (await this.tokenizer.run(id, { newKeys: [TENANT_SUBJECT] })).wrapped_keys[0]!;
        await store.insertMany([{ token: TENANT_SUBJECT, wrapped: made }], now, true);
        wrapped = (await store.get([TENANT_SUBJECT])).get(TENANT_SUBJECT)!;
      }
      this.tenantKeys.set(id, wrapped);
    }
  }

  /** The tenant's own data key (see TENANT_SUBJECT). */
  async tenantKey(tenantId: number): Promise<PersonKey> {
    let wrapped = this.tenantKeys.get(tenantId);
    if (!wrapped) {
      // Made by another replica: read once. Its absence is a fault (ensureTenantKeys runs before serving).
      wrapped = (await this.db.stores(tenantId).subjectKeys.get([TENANT_SUBJECT])).get(TENANT_SUBJECT) ?? undefined;
      if (!wrapped) throw new Error(`tenant ${tenantId} has no data key`);
      this.tenantKeys.set(tenantId, wrapped);
    }
    return { subject: TENANT_SUBJECT, wrapped };
  }

  // Per scope (one request, or one transaction of it): a person's wrapped key is read once however many of
  // their records the request opens. Never across requests: another replica may have erased the person.
  private readonly known = new WeakMap<object, Map<string, Buffer | null>>();

  private cache(scope: Scope): Map<string, Buffer | null> {
    let m = this.known.get(scope);
    if (!m) this.known.set(scope, (m = new Map()));
    return m;
  }

  /** Notes a key the caller read with its row, sparing the key table a read. */
  remember(scope: Scope, token: string, wrapped: Buffer): void {
    this.cache(scope).set(token, wrapped);
  }

  /** The keys this scope has read or erased so far (an erased one as null), for its audit event. */
  knownIn(scope: Scope): ReadonlyMap<string, Buffer | null> {
    return this.cache(scope);
  }

  /** Forgets a person's key in this scope (it was just erased). */
  forget(scope: Scope, token: string): void {
    this.cache(scope).set(token, null);
  }

  /**
   * The wrapped keys of these tokens: a Buffer for a live person, null for an erased one; tokens that never had
   * a key (not a person) are left out.
   */
  async of(scope: Scope, tokens: string[]): Promise<Map<string, Buffer | null>> {
    const cache = this.cache(scope);
    const missing = [...new Set(tokens.filter((t) => !cache.has(t)))];
    if (missing.length) {
      const found = await scope.stores.subjectKeys.get(missing);
      for (const t of missing) if (found.has(t)) cache.set(t, found.get(t)!);
    }
    const out = new Map<string, Buffer | null>();
    for (const t of tokens) if (cache.has(t)) out.set(t, cache.get(t)!);
    return out;
  }

  /** The person's key, or 404 `User not found` when they were erased (or never existed). */
  async key(scope: Scope, token: string): Promise<PersonKey> {
    const wrapped = (await this.of(scope, [token])).get(token);
    if (!wrapped) throw notFound(Messages.userNotFound);
    return { subject: token, wrapped };
  }

  /** Stores new persons' wrapped keys (in the caller's transaction, before their rows). */
  async insert(scope: Scope, rows: { token: string; wrapped: Buffer }[]): Promise<void> {
    await scope.stores.subjectKeys.insertMany(rows, scope.now);
    for (const r of rows) this.remember(scope, r.token, r.wrapped);
  }
}
