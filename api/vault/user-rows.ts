// Finding a person's row: by token, or by the lookup hash of a login, email, phone or custom value. It only finds:
// judging whether the caller may reach the person is the caller's (users.ts, and the operation's gate).
import type { Database } from '../store/database.js';
import { type UserRow, INDEX_COLUMN } from '../store/users.js';
import { badRequest, Messages } from '../errors.js';
import { isUuid, type IndexMode, type Mode } from './identities.js';
import { Coalescer } from '../coalesce.js';
import type { LookupHashes } from './lookup-hashes.js';
import type { Scope } from './scope.js';
import type { Indexes } from './taken-indexes.js';
import { expiresAt } from './durations.js';

export interface Expiry {
  finaltime: number | null;
  slidingtime: number | null;
}

export class UserRows {
  // Plain reads of concurrent requests share one SELECT per tenant, mode and second.
  private readonly lookups = new Coalescer<string | Buffer, UserRow | null>((group, keys) => this.lookupMany(group, keys), {
    maxInFlight: 2,
  });

  constructor(
    private readonly db: Database,
    private readonly hashes: LookupHashes,
  ) {}

  /** The live row named by (mode, identity), or null; `forUpdate` reads it on the scope's transaction, locked. */
  async lookup(scope: Scope, by: { mode: Mode; identity: string; forUpdate: boolean }): Promise<UserRow | null> {
    const { mode, identity, forUpdate } = by;
    // Inside a transaction (or to lock) the read must use that transaction's connection: no sharing.
    const shared = !forUpdate && !scope.stores.sql.inTransaction;
    if (mode === 'token') {
      if (!isUuid(identity)) throw badRequest(Messages.badUuid);
      const token = identity.toLowerCase();
      return shared ? this.lookups.add(`${scope.tenantId}|token|${scope.now}`, token) : scope.stores.users.byToken(token, scope.now, forUpdate);
    }
    const [hash] = await this.hashes.of(scope.tenantId, [{ mode, identity }]);
    if (!hash) return null;
    if (shared) return this.lookups.add(`${scope.tenantId}|${mode}|${scope.now}`, hash);
    return scope.stores.users.byIndex(mode, hash, scope.now, forUpdate);
  }

  private async lookupMany(group: string, keys: (string | Buffer)[]): Promise<(UserRow | null)[]> {
    const [tenant, mode, now] = group.split('|') as [string, IndexMode | 'token', string];
    const tenantId = Number(tenant);
    const store = this.db.stores(tenantId).users;
    const keyOf = (k: string | Buffer) => (typeof k === 'string' ? k : k.toString('base64'));
    const unique = [...new Map(keys.map((k) => [keyOf(k), k])).values()];
    const rows = await store.byKeys(mode, unique, Number(now));
    const column = mode === 'token' ? null : INDEX_COLUMN[mode];
    const found = new Map(rows.map((r) => [column ? keyOf(r[column]!) : r.token, r]));
    // Each caller gets its own copy: a caller may change its row (touch) without affecting the others.
    return keys.map((k) => {
      const r = found.get(keyOf(k));
      return r ? { ...r } : null;
    });
  }
}

/** A person's first row: their sealed profile, its indexes and their wrapped data key, at version 1. */
export function firstRow(now: number, { token, profile, indexes, wrappedKey }: { token: string; profile: Buffer; indexes: Indexes; wrappedKey: Buffer }, expiry: Expiry): UserRow {
  return {
    token,
    profile,
    ...indexes,
    version: 1,
    created: now,
    updated: now,
    finaltime: expiry.finaltime,
    slidingtime: expiry.slidingtime,
    expiresAt: expiresAt(expiry.finaltime, expiry.slidingtime, now),
    grouproles: [],
    wrappedKey,
  };
}
