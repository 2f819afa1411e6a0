// Persons' data keys as the api holds them: wrapped, read from the key table once per request and per person.
// A person without a live key reads as erased everywhere: that is what erasure means (ARCHITECTURE, "Keys").
import { storesOf } from '../store/stores.js';
import type { PersonKey } from '../tokenizer-client.js';
import { notFound, Messages } from '../errors.js';
import type { Scope } from './users.js';

export type { PersonKey } from '../tokenizer-client.js';

/** The person key of a user row read with its key (UserStore reads rows only while their key lives). */
export function keyOfRow(row: { token: string; wrappedKey: Buffer }): PersonKey {
  return { subject: row.token, wrapped: row.wrappedKey };
}

export class SubjectKeys {
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
      const found = await storesOf(scope).subjectKeys.get(missing);
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
    await storesOf(scope).subjectKeys.insertMany(rows, scope.now);
    for (const r of rows) this.remember(scope, r.token, r.wrapped);
  }
}
