// User profiles: find by any mode, create, change and erase them, sealing every profile through the tokenizer.
import { createHash, randomUUID } from 'node:crypto';
import type { TokenizerClient } from '../tokenizer-client.js';
import type { Database } from '../store/database.js';
import { type UserRow, INDEX_COLUMN } from '../store/users.js';
import { badRequest, conflict, notFound, Messages } from '../errors.js';
import { INDEX_KIND, indexValues, unindexable, unindexableMessage, type IndexMode, type Mode } from './identities.js';
import { expiresAt } from './durations.js';
import { documentBytes } from './documents.js';
import { altered } from './sealed.js';
import { keyOfRow, type PersonKey, type SubjectKeys } from './subject-keys.js';
import { LookupHashes } from './lookup-hashes.js';
import { UserRows, firstRow, type Expiry } from './user-rows.js';
import { TakenIndexes, type Indexes } from './taken-indexes.js';
import type { Scope } from './scope.js';
import type { Events } from './events.js';

export const USERS_TABLE = 'users';

/** A profile's AAD row: the person and the version number, so no version can stand in for another. */
export function profileRowId(token: string, version: number): string {
  return `${token}/v${version}`;
}

/** A user row as far as opening its profile needs. */
export type SealedProfile = Pick<UserRow, 'token' | 'wrappedKey' | 'version' | 'profile'>;
/** Profiles per tokenizer call and per INSERT in a bulk create. */
const BULK_CHUNK = 250;
export type Profile = Record<string, unknown>;

export type { Expiry } from './user-rows.js';

export interface FoundUser {
  row: UserRow;
  profile: Profile;
}

export interface BulkOutcome {
  created: { token: string; profile: Profile }[];
  errors: { profile: Profile; reason: string }[];
}


export class Users {
  /** Lookup hashes of identities, cached. */
  readonly hashes: LookupHashes;

  /** Finds rows by any mode, sharing plain reads of concurrent requests. */
  private readonly rows: UserRows;

  constructor(
    private readonly tokenizer: TokenizerClient,
    private readonly db: Database,
    private readonly opts: { versioning: boolean; maxVersions: number; maxBytes: number },
    readonly keys: SubjectKeys,
    private readonly events: Events,
  ) {
    this.hashes = new LookupHashes(tokenizer);
    this.rows = new UserRows(db, this.hashes);
  }

  /** A scope for reads of another tenant's people outside any transaction (PolicyExplain of a role elsewhere). */
  readScope(tenantId: number, now: number): Scope {
    return { stores: this.db.stores(tenantId), tenantId, now };
  }

  /** Whether a replaced profile is kept as a version (STRONGROOM_VERSIONING). */
  get keepsVersions(): boolean {
    return this.opts.versioning;
  }

  /** The largest profile, as JSON (STRONGROOM_PROFILE_MAX_BYTES): what a patch may grow one to. */
  get maxBytes(): number {
    return this.opts.maxBytes;
  }

  /**
   * The live user named by (mode, identity), or null. With `forUpdate` the row stays locked until commit. It only
   * finds: an operation judges the person through its gate (ops/subject.ts) before it answers anything about them.
   */
  async lookupRow(scope: Scope, mode: Mode, identity: string, forUpdate = false): Promise<UserRow | null> {
    const row = await this.rows.lookup(scope, { mode, identity, forUpdate });
    if (row) this.keys.remember(scope, row.token, row.wrappedKey);
    return row;
  }

  /** As `lookupRow`, or 404. */
  async findRow(scope: Scope, mode: Mode, identity: string, forUpdate = false): Promise<UserRow> {
    const row = await this.lookupRow(scope, mode, identity, forUpdate);
    if (!row) throw notFound(Messages.userNotFound);
    return row;
  }

  async find(scope: Scope, mode: Mode, identity: string, forUpdate = false): Promise<FoundUser> {
    const row = await this.findRow(scope, mode, identity, forUpdate);
    return { row, profile: await this.open(scope.tenantId, row) };
  }

  /**
   * The profile in a sealed row. A row read once in a request is often opened twice (a role's condition about the
   * person, then the answer): the plaintext of that very Buffer is kept for as long as the row lives, and each caller
   * gets its own copy.
   */
  async open(tenantId: number, row: SealedProfile): Promise<Profile> {
    return this.openVersion(tenantId, keyOfRow(row), row.version, row.profile);
  }

  /** A profile sealed as `version` of the person whose key is given. */
  async openVersion(tenantId: number, key: PersonKey, version: number, sealed: Buffer): Promise<Profile> {
    const known = this.opened.get(sealed);
    if (known !== undefined) return JSON.parse(known) as Profile;
    const [plain] = (await altered(this.tokenizer.run(tenantId, { open: [{ table: USERS_TABLE, rowId: profileRowId(key.subject, version), ciphertext: sealed, key }] })))
      .opened;
    const text = plain!.toString('utf8');
    // The text is kept, not a clone: most rows are opened once, and a second opening parses it again.
    this.opened.set(sealed, text);
    return JSON.parse(text) as Profile;
  }

  private readonly opened = new WeakMap<Buffer, string>();

  async openMany(tenantId: number, rows: SealedProfile[]): Promise<Profile[]> {
    if (!rows.length) return [];
    const { opened } = await altered(this.tokenizer.run(tenantId, {
      open: rows.map((r) => ({ table: USERS_TABLE, rowId: profileRowId(r.token, r.version), ciphertext: r.profile, key: keyOfRow(r) })),
    }));
    return opened.map((b) => JSON.parse(b.toString('utf8')) as Profile);
  }

  /** Hashes for lookups, batched in one tokenizer call, cached per tenant. */
  lookupHashes(tenantId: number, items: { mode: IndexMode; identity: string }[]): Promise<(Buffer | null)[]> {
    return this.hashes.of(tenantId, items);
  }

  /**
   * Seals profiles as `version` under their person's key and hashes their index fields in one tokenizer call. A
   * key with `wrapped` null is made in the same call: its wrapped form comes back as `wrapped`.
   */
  private async seal(
    tenantId: number,
    items: { key: PersonKey; version: number; profile: Profile }[],
  ): Promise<{ sealed: Buffer; indexes: Indexes; wrapped: Buffer | null }[]> {
    const hashItems: { kind: (typeof INDEX_KIND)[IndexMode]; value: string }[] = [];
    const slots: { item: number; mode: IndexMode; cacheKey: string }[] = [];
    // A value whose hash this process already knows (an update that keeps the email, a lookup just made) is not
    // hashed again: the phone's normalisation alone was a good part of the tokenizer's time per UserUpdate.
    const known: { item: number; mode: IndexMode; hash: Buffer }[] = [];
    items.forEach((it, i) => {
      // What the input's schema refuses, a patch or a merge may still make (a field set to true or to an object).
      const bad = unindexable(it.profile);
      if (bad) throw badRequest(`Invalid API request parameter: profile: ${unindexableMessage(bad)}`);
      for (const [mode, value] of Object.entries(indexValues(it.profile)) as [IndexMode, string][]) {
        const cacheKey = this.hashes.keyOf(tenantId, mode, value);
        const hash = this.hashes.get(cacheKey);
        if (hash) {
          known.push({ item: i, mode, hash });
          continue;
        }
        hashItems.push({ kind: INDEX_KIND[mode], value });
        slots.push({ item: i, mode, cacheKey });
      }
    });
    const newKeys = items.filter((it) => !it.key.wrapped).map((it) => it.key.subject);
    const { hash, sealed, wrapped_keys } = await this.tokenizer.run(tenantId, {
      hash: hashItems,
      newKeys,
      seal: items.map((it) => ({
        table: USERS_TABLE,
        rowId: profileRowId(it.key.subject, it.version),
        plaintext: documentBytes('profile', it.profile, this.opts.maxBytes),
        key: it.key,
      })),
    });
    const made = new Map(newKeys.map((t, i) => [t, wrapped_keys[i]!]));
    const out = items.map((it, i) => ({
      sealed: sealed[i]!,
      indexes: { loginIdx: null, emailIdx: null, phoneIdx: null, customIdx: null } as Indexes,
      wrapped: made.get(it.key.subject) ?? null,
    }));
    for (const k of known) if (k.hash.length) out[k.item]!.indexes[INDEX_COLUMN[k.mode]] = k.hash;
    slots.forEach((s, j) => {
      const h = hash[j]!;
      if (h.length) out[s.item]!.indexes[INDEX_COLUMN[s.mode]] = h;
      // A value's hash never changes, so the next lookup by this identity needs no tokenizer call.
      this.hashes.set(s.cacheKey, h);
    });
    return out;
  }

  async create(scope: Scope, profile: Profile, expiry: Expiry): Promise<string> {
    const token = randomUUID();
    const [{ sealed, indexes, wrapped }] = (await this.seal(scope.tenantId, [{ key: { subject: token, wrapped: null }, version: 1, profile }])) as [
      { sealed: Buffer; indexes: Indexes; wrapped: Buffer },
    ];
    await this.keys.insert(scope, [{ token, wrapped }]);
    await scope.stores.users.insert(firstRow(scope.now, { token, profile: sealed, indexes, wrappedKey: wrapped }, expiry));
    return token;
  }

  /** Partial success: a duplicate (against the tenant or earlier in the batch) goes to `errors`. */
  async createMany(scope: Scope, profiles: Profile[], expiry: Expiry): Promise<BulkOutcome> {
    const tokens = profiles.map(() => randomUUID());
    // Sealing is the slow step: every chunk goes to the tokenizer at once, and each chunk is checked and
    // inserted as soon as it is back, while the tokenizer still works on the next ones.
    const chunks: number[][] = [];
    for (let i = 0; i < profiles.length; i += BULK_CHUNK) chunks.push(Array.from({ length: Math.min(BULK_CHUNK, profiles.length - i) }, (_, j) => i + j));
    const sealing = chunks.map((chunk) =>
      this.seal(
        scope.tenantId,
        chunk.map((i) => ({ key: { subject: tokens[i]!, wrapped: null }, version: 1, profile: profiles[i]! })),
      ),
    );
    // Nothing may be left unobserved if an early chunk fails and the loop stops.
    for (const p of sealing) p.catch(() => undefined);
    const store = scope.stores.users;
    const taken = new TakenIndexes();
    const errors: BulkOutcome['errors'] = [];
    const created: BulkOutcome['created'] = [];
    for (const [c, chunk] of chunks.entries()) {
      const sealed = await sealing[c]!;
      taken.markRows(await store.byAnyIndex(TakenIndexes.wanted(sealed.map((s) => s.indexes)), 0));
      const rows: UserRow[] = [];
      const rowProfile = new Map<string, Profile>();
      sealed.forEach((s, k) => {
        const i = chunk[k]!;
        const dup = taken.duplicateOf(s.indexes);
        if (dup) {
          errors.push({ profile: profiles[i]!, reason: `Duplicate ${dup} value` });
          return;
        }
        taken.take(s.indexes);
        rows.push(firstRow(scope.now, { token: tokens[i]!, profile: s.sealed, indexes: s.indexes, wrappedKey: s.wrapped! }, expiry));
        rowProfile.set(tokens[i]!, profiles[i]!);
      });
      // Keys first: a row is visible only with its key. A key whose row loses a race below is erased again.
      await this.keys.insert(scope, rows.map((r) => ({ token: r.token, wrapped: r.wrappedKey })));
      const inserted = await store.insertMany(rows);
      await scope.stores.subjectKeys.erase(rows.filter((r) => !inserted.has(r.token)).map((r) => r.token), scope.now);
      for (const row of rows) {
        // A row skipped by ON CONFLICT lost a race with a concurrent writer of the same index.
        if (inserted.has(row.token)) created.push({ token: row.token, profile: rowProfile.get(row.token)! });
        else errors.push({ profile: rowProfile.get(row.token)!, reason: 'Duplicate index value' });
      }
    }
    this.events.emit('peopleLoaded', { scope, count: created.length });
    return { created, errors };
  }

  /**
   * Replaces a locked user's profile, keeping the old one as a version; 409 when a new index is taken. `user` is as
   * found (its profile the row's, unchanged: callers change a copy), since the row's hashes are taken as its values'.
   */
  async replace(scope: Scope, user: FoundUser, profile: Profile): Promise<void> {
    const { row } = user;
    // The row holds the hashes of its current values: an update that keeps them needs none computed again.
    for (const [mode, value] of Object.entries(indexValues(user.profile)) as [IndexMode, string][]) {
      const hash = row[INDEX_COLUMN[mode]];
      if (hash) this.hashes.set(this.hashes.keyOf(scope.tenantId, mode, value), hash);
    }
    const [{ sealed, indexes }] = (await this.seal(scope.tenantId, [{ key: keyOfRow(row), version: row.version + 1, profile }])) as [
      { sealed: Buffer; indexes: Indexes; wrapped: null },
    ];
    const store = scope.stores.users;
    const set = { profile: sealed, ...indexes, version: row.version + 1, updated: scope.now };
    // The old profile becomes a version in the same statement (STRONGROOM_MAX_VERSIONS is 1 or more).
    if (this.opts.versioning) await store.updateKeepingVersion(row.token, { version: row.version, keep: this.opts.maxVersions }, set);
    else await store.update(row.token, set);
  }

  /** Brings a removed user back from its newest kept version, under the same token, as a new version. */
  async restore(scope: Scope, token: string): Promise<Profile> {
    const store = scope.stores.users;
    if (await store.byToken(token, 0)) throw conflict(Messages.userExists);
    const versions = await store.versions(token);
    const latest = versions.at(-1);
    if (!latest) throw notFound(Messages.userNotFound);
    // Kept by SystemDeleteUserProfiles; an erased person's key is gone, and so is their profile.
    const key = await this.keys.key(scope, token);
    const profile = await this.openVersion(scope.tenantId, key, latest.version, latest.profile);
    const [{ sealed, indexes }] = (await this.seal(scope.tenantId, [{ key, version: latest.version + 1, profile }])) as [{ sealed: Buffer; indexes: Indexes; wrapped: null }];
    const row = { ...firstRow(scope.now, { token, profile: sealed, indexes, wrappedKey: key.wrapped! }, { finaltime: null, slidingtime: null }), version: latest.version + 1 };
    await store.insert(row);
    return profile;
  }

  /** Removes the live user but keeps its current profile as a version, for SystemRestoreUserProfile. */
  async removeKeepingVersions(scope: Scope, row: UserRow): Promise<void> {
    const store = scope.stores.users;
    await store.keepVersion(row.token, row.version, row.profile, scope.now, Number.MAX_SAFE_INTEGER);
    await store.removeKeepingVersions(row.token);
    this.events.emit('personRemoved', { scope, token: row.token });
  }

  /** Erases the person: their row, versions and data key, in the caller's transaction. */
  async remove(scope: Scope, token: string): Promise<void> {
    await scope.stores.users.remove(token);
    this.keys.forget(scope, token);
    this.events.emit('personRemoved', { scope, token });
  }

  /** Restarts a sliding window on use; skipped when it would move by less than a minute, to spare writes. */
  async touch(scope: Scope, row: UserRow): Promise<void> {
    if (!row.slidingtime) return;
    const next = expiresAt(row.finaltime, row.slidingtime, scope.now);
    if (next !== null && (row.expiresAt === null || next - row.expiresAt >= 60)) {
      await scope.stores.users.touch(row.token, next);
      row.expiresAt = next;
    }
  }

  async profileAt(scope: Scope, row: UserRow, version: number): Promise<Profile> {
    if (version === row.version) return this.open(scope.tenantId, row);
    const v = version > 0 && version < row.version ? await scope.stores.users.version(row.token, version) : null;
    if (!v) throw notFound(Messages.versionNotFound);
    return this.openVersion(scope.tenantId, keyOfRow(row), version, v.profile);
  }

  /** Versions with their time and the MD5 of their content, computed from the opened profiles (no hash is stored). */
  /**
   * The kept versions with their time and the MD5 of each as `view` shows it (the caller's mask: a hash over fields
   * the caller may not see would let a guess of them be checked offline); without `view`, of each as stored.
   */
  async versions(scope: Scope, row: UserRow, view?: (profile: Profile) => Profile): Promise<{ version: number; optime: number; md5: string }[]> {
    const old = await scope.stores.users.versions(row.token);
    const all = [...old, { version: row.version, profile: row.profile, optime: row.updated }];
    const key = keyOfRow(row);
    const { opened } = await altered(this.tokenizer.run(scope.tenantId, {
      open: all.map((v) => ({ table: USERS_TABLE, rowId: profileRowId(row.token, v.version), ciphertext: v.profile, key })),
    }));
    const shown = (bytes: Buffer) => (view ? Buffer.from(JSON.stringify(view(JSON.parse(bytes.toString('utf8')) as Profile))) : bytes);
    return all.map((v, i) => ({ version: v.version, optime: v.optime, md5: createHash('md5').update(shown(opened[i]!)).digest('hex') }));
  }
}

/** The fields UserGet and the bulk lists return for one user. */
export function presentUser(row: UserRow, profile: Profile) {
  return {
    token: row.token,
    profile,
    version: row.version,
    finaltime: row.finaltime ?? 0,
    slidingtime: row.slidingtime ?? 0,
    expirationtime: row.expiresAt ?? 0,
    grouproles: row.grouproles,
  };
}
