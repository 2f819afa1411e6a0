// SQL of the upgrade from a database sealed before per-person keys (api/vault/jobs/legacy.ts): finding what is still in
// the legacy format (format byte 0x01 where today every value is 0x02 or 0x03 under a data key), reading a batch of it, and
// writing back what the tokenizer resealed. Runs in the migrator's transactions, as the owner: the tenant's role
// may not update audit events, and the re-chain must.
import { TenantTables } from './tenant-tables.js';

/** A value in the legacy format: today's personal values start with 0x02 or 0x03. */
const LEGACY = (col: string) => `get_byte(${col}, 0) = 1`;
/**
 * Persons sealed by the legacy version: live rows and rows SystemDeleteUserProfiles kept as versions only, whose
 * profile is in the legacy format. A row in today's format without a key is not legacy: its key is gone (a data
 * backup restored without its key table), and it reads as erased.
 */
const PEOPLE = (t: string) => `(select token from ${t}.users where ${LEGACY('profile')} union select token from ${t}.user_versions where ${LEGACY('profile')})`;

export interface LegacyPersonRows {
  profiles: { token: string; version: number; profile: Buffer; current: boolean }[];
  app: { token: string; appname: string; version: number; data: Buffer; current: boolean }[];
  sessions: { sessionuuid: string; token: string; data: Buffer }[];
  agreements: { token: string; brief: string; basisId: string; details: Buffer }[];
  requests: { requestuuid: string; token: string; type: string; change: Buffer }[];
  files: { fileuuid: string; token: string; objectKey: string; name: Buffer }[];
  audit: { uuid: string; token: string; details: Buffer }[];
}

export class LegacyStore extends TenantTables {
  /** Transaction-scoped: true for the one replica that migrates this tenant now. */
  async tryLock(): Promise<boolean> {
    const [lock] = await this.sql<{ locked: boolean }>('select pg_try_advisory_xact_lock(hashtext($1)) as locked', [`strongroom:legacy:${this.tenantId}`]);
    return lock?.locked === true;
  }

  /** Whether anything of the tenant is still as a version before per-person keys left it. */
  async pending(): Promise<boolean> {
    const [r] = await this.sql<{ pending: boolean }>(
      `select exists (select 1 from ${PEOPLE(this.t)} p where not exists (select 1 from ${this.t}.subject_keys k where k.token = p.token))
           or exists (select 1 from ${this.t}.audit_events where digest is null) as pending`,
    );
    return r?.pending === true;
  }

  /** Persons without an entry in the key table, in token order. */
  async peopleLeft(limit: number): Promise<string[]> {
    const rows = await this.sql<{ token: string }>(
      `select p.token from ${PEOPLE(this.t)} p where not exists (select 1 from ${this.t}.subject_keys k where k.token = p.token) order by p.token limit $1`,
      [limit],
    );
    return rows.map((r) => r.token);
  }

  /** One live profile in the legacy format, to try the keyring on. */
  async sample(): Promise<{ token: string; profile: Buffer } | null> {
    const [r] = await this.sql<{ token: string; profile: Buffer }>(`select token, profile from ${this.t}.users where ${LEGACY('profile')} limit 1`);
    return r ?? null;
  }

  /** Legacy persons still without a key. */
  async peopleLeftCount(): Promise<number> {
    const [r] = await this.sql<{ left: number }>(
      `select count(*)::int as left from ${PEOPLE(this.t)} p where not exists (select 1 from ${this.t}.subject_keys k where k.token = p.token)`,
    );
    return r?.left ?? 0;
  }

  /** Every sealed value of these persons, as the legacy version stored it. */
  async personRows(tokens: string[]): Promise<LegacyPersonRows> {
    const t = this.t;
    const p = [tokens];
    const [profiles, versions, app, appVersions, sessions, agreements, requests, files, audit] = [
      await this.sql<{ token: string; version: number; profile: Buffer }>(`select token, version, profile from ${t}.users where token = any($1::uuid[])`, p),
      await this.sql<{ token: string; version: number; profile: Buffer }>(`select token, version, profile from ${t}.user_versions where token = any($1::uuid[]) and ${LEGACY('profile')}`, p),
      await this.sql<{ token: string; appname: string; version: number; data: Buffer }>(
        `select user_token as token, appname, version, data from ${t}.app_records where user_token = any($1::uuid[]) and ${LEGACY('data')}`,
        p,
      ),
      await this.sql<{ token: string; appname: string; version: number; data: Buffer }>(
        `select user_token as token, appname, version, data from ${t}.app_versions where user_token = any($1::uuid[]) and ${LEGACY('data')}`,
        p,
      ),
      await this.sql<{ sessionuuid: string; token: string; data: Buffer }>(
        `select sessionuuid, user_token as token, data from ${t}.sessions where user_token = any($1::uuid[]) and ${LEGACY('data')}`,
        p,
      ),
      await this.sql<{ token: string; brief: string; basisId: string; details: Buffer }>(
        `select a.user_token as token, a.brief, b.id as "basisId", a.details from ${t}.agreements a join ${t}.legal_bases b on b.brief = a.brief
         where a.user_token = any($1::uuid[]) and ${LEGACY('a.details')}`,
        p,
      ),
      await this.sql<{ requestuuid: string; token: string; type: string; change: Buffer }>(
        `select requestuuid, user_token as token, requesttype as type, change from ${t}.user_requests
         where user_token = any($1::uuid[]) and change is not null and ${LEGACY('change')}`,
        p,
      ),
      await this.sql<{ fileuuid: string; token: string; objectKey: string; name: Buffer }>(
        `select fileuuid, user_token as token, object_key as "objectKey", name_sealed as name from ${t}.files where user_token = any($1::uuid[]) and ${LEGACY('name_sealed')}`,
        p,
      ),
      await this.sql<{ uuid: string; token: string; details: Buffer }>(
        `select uuid, record as token, details from ${t}.audit_events where record = any($1::uuid[]) and details is not null and ${LEGACY('details')}`,
        p,
      ),
    ];
    return {
      profiles: [...profiles.filter((r) => r.profile[0] === 1).map((r) => ({ ...r, current: true })), ...versions.map((r) => ({ ...r, current: false }))],
      app: [...app.map((r) => ({ ...r, current: true })), ...appVersions.map((r) => ({ ...r, current: false }))],
      sessions,
      agreements,
      requests,
      files,
      audit,
    };
  }

  /** Writes back resealed values; each statement touches only rows still in the legacy format. */
  async writePersonRows(rows: LegacyPersonRows): Promise<void> {
    const t = this.t;
    const cur = rows.profiles.filter((r) => r.current);
    const old = rows.profiles.filter((r) => !r.current);
    if (cur.length) {
      await this.sql(`update ${t}.users u set profile = x.p from unnest($1::uuid[], $2::bytea[]) as x(t, p) where u.token = x.t and ${LEGACY('u.profile')}`, [
        cur.map((r) => r.token),
        cur.map((r) => r.profile),
      ]);
    }
    if (old.length) {
      await this.sql(
        `update ${t}.user_versions v set profile = x.p from unnest($1::uuid[], $2::int[], $3::bytea[]) as x(t, n, p)
         where v.token = x.t and v.version = x.n and ${LEGACY('v.profile')}`,
        [old.map((r) => r.token), old.map((r) => r.version), old.map((r) => r.profile)],
      );
    }
    for (const [table, current] of [['app_records', true], ['app_versions', false]] as const) {
      const app = rows.app.filter((r) => r.current === current);
      if (!app.length) continue;
      await this.sql(
        `update ${t}.${table} a set data = x.d from unnest($1::uuid[], $2::text[], $3::int[], $4::bytea[]) as x(t, n, v, d)
         where a.user_token = x.t and a.appname = x.n and a.version = x.v and ${LEGACY('a.data')}`,
        [app.map((r) => r.token), app.map((r) => r.appname), app.map((r) => r.version), app.map((r) => r.data)],
      );
    }
    await this.updateBy('sessions', 'sessionuuid', 'data', rows.sessions.map((r) => [r.sessionuuid, r.data]));
    await this.updateBy('user_requests', 'requestuuid', 'change', rows.requests.map((r) => [r.requestuuid, r.change]));
    await this.updateBy('files', 'fileuuid', 'name_sealed', rows.files.map((r) => [r.fileuuid, r.name]));
    await this.updateBy('audit_events', 'uuid', 'details', rows.audit.map((r) => [r.uuid, r.details]));
    if (rows.agreements.length) {
      await this.sql(
        `update ${t}.agreements a set details = x.d from unnest($1::uuid[], $2::text[], $3::bytea[]) as x(t, b, d)
         where a.user_token = x.t and a.brief = x.b and ${LEGACY('a.details')}`,
        [rows.agreements.map((r) => r.token), rows.agreements.map((r) => r.brief), rows.agreements.map((r) => r.details)],
      );
    }
  }

  private async updateBy(table: string, id: string, column: string, rows: [string, Buffer][]): Promise<void> {
    if (!rows.length) return;
    await this.sql(`update ${this.t}.${table} r set ${column} = x.v from unnest($1::uuid[], $2::bytea[]) as x(i, v) where r.${id} = x.i and ${LEGACY(`r.${column}`)}`, [
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
    ]);
  }

  async moveFile(fileuuid: string, objectKey: string): Promise<void> {
    await this.sql(`update ${this.t}.files set object_key = $2 where fileuuid = $1`, [fileuuid, objectKey]);
  }

  /**
   * Tenant-level values still in the legacy format, a batch of each: tokens, sessions naming nobody, and audit
   * details not about a migrated person (with the key-table state of the event's record: a live key, a tombstone,
   * or none).
   */
  async tenantRows(limit: number) {
    const t = this.t;
    return {
      tokens: await this.sql<{ id: string; value: Buffer }>(`select tokenuuid as id, sealed as value from ${t}.tokens where ${LEGACY('sealed')} limit $1`, [limit]),
      sessions: await this.sql<{ id: string; value: Buffer }>(
        `select sessionuuid as id, data as value from ${t}.sessions where user_token is null and ${LEGACY('data')} limit $1`,
        [limit],
      ),
      // `gone`: the record is no one's any more, neither a person's (live, restorable or a tombstone) nor a token's:
      // the legacy version erased that person without a trace (it deleted their rows), so their details go too.
      audit: await this.sql<{ id: string; value: Buffer; record: string | null; keyed: boolean; wrapped: Buffer | null; gone: boolean }>(
        `select e.uuid as id, e.details as value, e.record, k.token is not null as keyed, k.wrapped,
           (e.record is not null and k.token is null
             and not exists (select 1 from ${t}.users u where u.token = e.record)
             and not exists (select 1 from ${t}.user_versions v where v.token = e.record)
             and not exists (select 1 from ${t}.tokens x where x.tokenuuid = e.record)) as gone
         from ${t}.audit_events e
         left join ${t}.subject_keys k on k.token = e.record where e.details is not null and ${LEGACY('e.details')} limit $1`,
        [limit],
      ),
    };
  }

  async writeTenantRows(tokens: [string, Buffer][], sessions: [string, Buffer][], audit: [string, Buffer][], erasedAudit: string[]): Promise<void> {
    await this.updateBy('tokens', 'tokenuuid', 'sealed', tokens);
    await this.updateBy('sessions', 'sessionuuid', 'data', sessions);
    await this.updateBy('audit_events', 'uuid', 'details', audit);
    if (erasedAudit.length) await this.sql(`update ${this.t}.audit_events set details = null where uuid = any($1::uuid[])`, [erasedAudit]);
  }

  /** Events with unkeyed (legacy) links: their count, and the first sequence number (1 for a trail from the legacy version). */
  async legacyEvents(): Promise<{ n: number; first: number | null; last: number | null }> {
    const [r] = await this.sql<{ n: number; first: string | null; last: string | null }>(
      `select count(*)::int as n, min(seq) as first, max(seq) as last from ${this.t}.audit_events where digest is null`,
    );
    return { n: r?.n ?? 0, first: r?.first == null ? null : Number(r.first), last: r?.last == null ? null : Number(r.last) };
  }

  /** Replaces the links and digests of a run of events (the re-chain), then the head's, in the caller's transaction. */
  async relink(rows: { seq: number; hash: Buffer; digest: Buffer }[]): Promise<void> {
    if (!rows.length) return;
    await this.sql(`update ${this.t}.audit_events e set hash = x.h, digest = x.d from unnest($1::bigint[], $2::bytea[], $3::bytea[]) as x(s, h, d) where e.seq = x.s`, [
      rows.map((r) => r.seq),
      rows.map((r) => r.hash),
      rows.map((r) => r.digest),
    ]);
  }

  async moveHead(hash: Buffer, digest: Buffer): Promise<void> {
    await this.sql(`update ${this.t}.audit_head set hash = $1, digest = $2 where id = 1`, [hash, digest]);
  }
}
