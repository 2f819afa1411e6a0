// The upgrade of a database sealed before per-person keys (commit 11833ee and older: docs/operations.md, "Upgrading a legacy
// database"). In the background, with the machinery of master-key rotation (rewrap.ts): per tenant an advisory lock
// lets one replica work at a time, a batch of persons per transaction, a pause between batches, and the progress is
// the data itself (a person with a key-table entry is done, a value in the personal format is done), so a restart
// resumes where the last commit left off. Per tenant, in this order:
//   0. the legacy audit chain (plain sha256 links) is verified once, before any event detail changes, and the
//      verdict kept in the settings table (a broken chain is logged, shown in the status and told in the trail);
//   1. each person gets a data key, and every value of theirs is resealed under it with today's AAD;
//   2. tokens, sessions naming nobody and audit details about no person are resealed under the tenant's own key;
//   3. the whole trail is re-chained under the keyed chain, and an event records that it was, from which head.
// The tokenizer opens and reseals in one call (ResealLegacy): no plaintext reaches the api. Until a tenant is done
// its calls answer 503 with Retry-After (api/ops/execute.ts): never the legacy bytes as if they were today's.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import type { Stores } from '../../store/stores.js';
import type { LegacyPersonRows } from '../../store/legacy.js';
import { newObjectKey, type BlobStore } from '../../store/blobs/index.js';
import type { PersonKey, TokenizerClient } from '../../tokenizer-client.js';
import { auditDigest } from '../../../proto/audit-checkpoint.js';
import { canonical, type AuditTrail } from '../audit/trail.js';
import { profileRowId, USERS_TABLE } from '../users.js';
import type { SubjectKeys } from '../subject-keys.js';
import { Job } from './job.js';
import { verifyLegacyChain, type LegacyChainVerdict } from './legacy-chain.js';
import type { Events } from '../events.js';

/** Where each kind of value was sealed by the legacy version (table, row), and where it goes now. */
const MAP = {
  profile: (token: string, version: number) => ({ from: { table: USERS_TABLE, rowId: token }, table: USERS_TABLE, rowId: profileRowId(token, version) }),
  app: (token: string, appname: string, version: number) => ({
    from: { table: 'app_records', rowId: `${token}:${appname}` },
    table: 'app_records',
    rowId: `${token}:${appname}/v${version}`,
  }),
  session: (uuid: string) => ({ from: { table: 'sessions', rowId: uuid }, table: 'sessions', rowId: uuid }),
  agreement: (token: string, brief: string, basisId: string) => ({ from: { table: 'agreements', rowId: `${token}:${brief}` }, table: 'agreements', rowId: `${token}:${basisId}` }),
  request: (uuid: string, type: string) => ({ from: { table: 'user_requests', rowId: uuid }, table: 'user_requests', rowId: `${uuid}:${type}` }),
  fileName: (token: string, fileuuid: string) => ({ from: { table: 'file_names', rowId: `${token}:${fileuuid}` }, table: 'file_names', rowId: `${token}:${fileuuid}` }),
  fileContent: (token: string, fileuuid: string) => ({ from: { table: 'files', rowId: `${token}:${fileuuid}` }, table: 'files', rowId: `${token}:${fileuuid}` }),
  audit: (uuid: string) => ({ from: { table: 'audit_events', rowId: uuid }, table: 'audit_events', rowId: uuid }),
  token: (uuid: string) => ({ from: { table: 'tokens', rowId: uuid }, table: 'tokens', rowId: uuid }),
};

export interface LegacyTenantProgress {
  tenant: number;
  phase: 'persons' | 'tenant data' | 'audit' | 'done' | 'stopped';
  persons: { done: number; total: number };
  legacyaudit?: LegacyChainVerdict;
  /** Why the migration of this tenant stopped (no content, no token): it is tried again at the next pass. */
  error?: string;
}

const VERDICT_KEY = (tenant: number) => `legacy.audit.${tenant}`;

export class LegacyMigrator extends Job {
  private readonly progress = new Map<number, LegacyTenantProgress>();
  private readonly keys: SubjectKeys;
  private readonly audit: AuditTrail;
  private readonly blobs: BlobStore;
  /** Told when a tenant is done (`tenantUpgraded`), so that its calls are served again at once. */
  private readonly events: Events;

  /** `data`: where the upgraded data goes (persons' keys, the audit trail, file objects). */
  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly opts: { seconds: number; batch: number; pauseMs: number },
    data: { keys: SubjectKeys; audit: AuditTrail; blobs: BlobStore; events: Events },
  ) {
    super('legacy upgrade', opts.seconds, log);
    ({ keys: this.keys, audit: this.audit, blobs: this.blobs, events: this.events } = data);
  }

  protected pass(): Promise<unknown> {
    return this.runOnce();
  }

  /** The tenants still holding legacy data, by this process's last look. */
  async pendingTenants(): Promise<number[]> {
    const out: number[] = [];
    for (const { id } of await this.db.global().tenants.all()) if (await this.db.stores(id).legacy.pending()) out.push(id);
    return out;
  }

  /** Progress of every tenant that held legacy data, as far as this process knows it, counted again now. */
  async status(): Promise<LegacyTenantProgress[]> {
    const out: LegacyTenantProgress[] = [];
    for (const id of await this.pendingTenants()) if (!this.progress.has(id)) this.progress.set(id, { tenant: id, phase: 'persons', persons: { done: 0, total: 0 } });
    for (const p of this.progress.values()) {
      const left = await this.db.stores(p.tenant).legacy.peopleLeftCount();
      const kept = await this.db.global().settings.get(VERDICT_KEY(p.tenant));
      if (kept) p.legacyaudit = JSON.parse(kept) as LegacyChainVerdict;
      const total = p.legacyaudit?.persons ?? left;
      p.persons = { done: total - left, total };
      out.push({ ...p });
    }
    return out.sort((a, b) => a.tenant - b.tenant);
  }

  /** One pass over every tenant with legacy data, each to its end (or until stopped, or `maxBatches` batches). */
  async runOnce(maxBatches = Infinity): Promise<void> {
    const budget = { batches: maxBatches };
    for (const id of await this.pendingTenants()) {
      if (this.stopping || budget.batches <= 0) return;
      const p = this.progress.get(id) ?? { tenant: id, phase: 'persons' as const, persons: { done: 0, total: 0 } };
      this.progress.set(id, p);
      try {
        if (await this.migrateTenant(id, p, budget)) {
          p.phase = 'done';
          delete p.error;
          this.log.info({ tenantId: id }, 'tenant upgraded from the legacy format: every value under per-person keys, the audit trail re-chained');
          this.events.emit('tenantUpgraded', { tenantId: id });
        }
      } catch (err) {
        p.phase = 'stopped';
        p.error = (err as Error).message;
        this.log.error({ tenantId: id, err: { type: (err as Error).name, message: (err as Error).message } }, 'legacy upgrade of a tenant stopped; tried again later');
      }
    }
  }

  /** True once the tenant is done; false when stopped early (by the budget, or another replica holds it). */
  private async migrateTenant(id: number, p: LegacyTenantProgress, budget: { batches: number }): Promise<boolean> {
    await this.tokenizer.prepare(id);
    await this.keys.ensureTenantKeys([id], Math.floor(Date.now() / 1000));
    const tenantKey = await this.keys.tenantKey(id);
    // Read here, outside the transactions below: on the embedded database another connection inside one would wait.
    const verdict = await this.verdict(id);
    if (!verdict) return false;
    p.phase = 'persons';
    for (;;) {
      if (this.stopping || budget.batches-- <= 0) return false;
      const batch = await this.locked(id, (stores) => this.personBatch(id, stores));
      if (batch === null) return false;
      // The legacy objects of resealed files go once the rows naming their successors have committed.
      await Promise.all(batch.gone.map((k) => this.blobs.delete(k).catch(() => undefined)));
      if (!batch.n) break;
      await this.pause();
    }
    p.phase = 'tenant data';
    for (;;) {
      if (this.stopping || budget.batches-- <= 0) return false;
      const n = await this.locked(id, (stores) => this.tenantBatch(id, stores, tenantKey));
      if (n === null) return false;
      if (!n) break;
      await this.pause();
    }
    p.phase = 'audit';
    const done = await this.locked(id, (stores) => this.rechain(id, stores, verdict));
    // The re-chain's own event was queued in its transaction: linked now, after the commit.
    if (done !== null) this.audit.drain(id);
    return done !== null;
  }

  private async pause(): Promise<void> {
    if (this.opts.pauseMs) await new Promise((resolve) => setTimeout(resolve, this.opts.pauseMs));
  }

  /** `work` in a transaction holding the tenant's migration lock; null when another replica holds it. */
  private async locked<T>(id: number, work: (stores: Stores) => Promise<T>): Promise<T | null> {
    return this.db.write(id, false, async (stores): Promise<T | null> => {
      if (!(await stores.legacy.tryLock())) return null;
      return work(stores);
    });
  }

  /**
   * Step 0: the legacy chain verified before any detail changes (they are part of what each link covers). Kept, so
   * a restart does not verify a trail that later steps changed. False when another replica holds the tenant.
   */
  private async verdict(id: number): Promise<LegacyChainVerdict | null> {
    const settings = this.db.global().settings;
    const kept = await settings.get(VERDICT_KEY(id));
    if (kept) return JSON.parse(kept) as LegacyChainVerdict;
    const verdict = await this.locked(id, async (stores) => {
      await stores.audit.lockHead();
      return verifyLegacyChain(stores);
    });
    if (!verdict) return null;
    await settings.set(VERDICT_KEY(id), JSON.stringify(verdict));
    if (verdict.result === 'broken') {
      this.log.error({ tenantId: id, ...verdict.broken, events: verdict.events }, 'the legacy audit chain is broken: the upgrade re-chains it and records the break in the trail');
    } else this.log.info({ tenantId: id, events: verdict.events }, 'the legacy audit chain verified intact');
    return verdict;
  }

  /** Step 1: a batch of persons, each with a new data key and every value of theirs resealed under it. */
  private async personBatch(id: number, stores: Stores): Promise<{ n: number; gone: string[] }> {
    const tokens = await stores.legacy.peopleLeft(this.opts.batch);
    if (!tokens.length) return { n: 0, gone: [] };
    const rows = await stores.legacy.personRows(tokens);
    const made: PersonKey = { subject: '', wrapped: null };
    const key = (subject: string): PersonKey => ({ ...made, subject });
    type Item = Parameters<TokenizerClient['resealLegacy']>[2][number];
    const items: Item[] = [];
    const put = (m: ReturnType<(typeof MAP)[keyof typeof MAP]>, ciphertext: Buffer, subject: string) => items.push({ ...m, ciphertext, key: key(subject) });
    for (const r of rows.profiles) put(MAP.profile(r.token, r.version), r.profile, r.token);
    for (const r of rows.app) put(MAP.app(r.token, r.appname, r.version), r.data, r.token);
    for (const r of rows.sessions) put(MAP.session(r.sessionuuid), r.data, r.token);
    for (const r of rows.agreements) put(MAP.agreement(r.token, r.brief, r.basisId), r.details, r.token);
    for (const r of rows.requests) put(MAP.request(r.requestuuid, r.type), r.change, r.token);
    for (const r of rows.files) put(MAP.fileName(r.token, r.fileuuid), r.name, r.token);
    for (const r of rows.audit) put(MAP.audit(r.uuid), r.details, r.token);
    const { wrappedKeys, resealed } = await this.tokenizer.resealLegacy(id, tokens, items);
    const wrapped = new Map(tokens.map((t, i) => [t, wrappedKeys[i]!]));
    let i = 0;
    const next = () => resealed[i++]!;
    const out: LegacyPersonRows = {
      profiles: rows.profiles.map((r) => ({ ...r, profile: next() })),
      app: rows.app.map((r) => ({ ...r, data: next() })),
      sessions: rows.sessions.map((r) => ({ ...r, data: next() })),
      agreements: rows.agreements.map((r) => ({ ...r, details: next() })),
      requests: rows.requests.map((r) => ({ ...r, change: next() })),
      files: rows.files.map((r) => ({ ...r, name: next() })),
      audit: rows.audit.map((r) => ({ ...r, details: next() })),
    };
    // File contents travel one per call (they may be large), each to a new object: the old one stays until the
    // row names the new one for good, so a rollback loses nothing.
    const gone: string[] = [];
    const written: string[] = [];
    try {
      for (const f of rows.files) {
        const sealed = await this.blobs.get(f.objectKey);
        if (!sealed) continue;
        const [content] = (
          await this.tokenizer.resealLegacy(id, [], [{ ...MAP.fileContent(f.token, f.fileuuid), ciphertext: sealed, key: { subject: f.token, wrapped: wrapped.get(f.token)! } }])
        ).resealed;
        const objectKey = newObjectKey(id);
        await this.blobs.put(objectKey, content!);
        written.push(objectKey);
        await stores.legacy.moveFile(f.fileuuid, objectKey);
        gone.push(f.objectKey);
      }
      await stores.subjectKeys.insertMany(tokens.map((t) => ({ token: t, wrapped: wrapped.get(t)! })), Math.floor(Date.now() / 1000));
      await stores.legacy.writePersonRows(out);
    } catch (err) {
      for (const k of written) await this.blobs.delete(k).catch(() => undefined);
      throw err;
    }
    return { n: tokens.length, gone };
  }

  /** Step 2: tokens, sessions naming nobody, audit details about no (live) person, a batch of each. */
  private async tenantBatch(id: number, stores: Stores, tenantKey: PersonKey): Promise<number> {
    const { tokens, sessions, audit } = await stores.legacy.tenantRows(this.opts.batch);
    // An event about a person erased before this version (a tombstone without a key, or no trace of them left at
    // all): their details go with them.
    const isErased = (a: { keyed: boolean; wrapped: Buffer | null; gone: boolean }) => (a.keyed && !a.wrapped) || a.gone;
    const erased = audit.filter(isErased).map((a) => a.id);
    // A tombstone for each: their events then answer as erased, as those of a person erased today do.
    await stores.subjectKeys.tombstones([...new Set(audit.filter((a) => a.gone).map((a) => a.record!))], Math.floor(Date.now() / 1000));
    const live = audit.filter((a) => !isErased(a));
    const items = [
      ...tokens.map((r) => ({ ...MAP.token(r.id), ciphertext: r.value, key: tenantKey })),
      ...sessions.map((r) => ({ ...MAP.session(r.id), ciphertext: r.value, key: tenantKey })),
      ...live.map((r) => ({ ...MAP.audit(r.id), ciphertext: r.value, key: r.wrapped ? { subject: r.record!, wrapped: r.wrapped } : tenantKey })),
    ];
    if (!items.length && !erased.length) return 0;
    const { resealed } = items.length ? await this.tokenizer.resealLegacy(id, [], items) : { resealed: [] };
    let i = 0;
    const pair = (r: { id: string }): [string, Buffer] => [r.id, resealed[i++]!];
    await stores.legacy.writeTenantRows(tokens.map(pair), sessions.map(pair), live.map(pair), erased);
    return items.length + erased.length;
  }

  /**
   * Step 3: every event linked again under the tenant's keyed chain (and its public digest), the head moved, and an
   * event appended saying which events were re-chained, from which legacy head, and what the legacy chain was found.
   */
  private async rechain(id: number, stores: Stores, verdict: LegacyChainVerdict): Promise<true> {
    const head = await stores.audit.lockHead();
    let prev: Buffer = Buffer.alloc(0);
    let digest: Buffer = Buffer.alloc(0);
    let seq = 0;
    while (seq < head.seq) {
      const rows = (await stores.audit.after(seq, 1000)).filter((r) => r.seq <= head.seq);
      if (!rows.length) break;
      const texts = rows.map(canonical);
      const links = await this.tokenizer.chainAudit(id, prev, seq + 1, texts);
      const relinked = rows.map((r, k) => {
        digest = auditDigest(digest, r.seq, texts[k]!);
        return { seq: r.seq, hash: links[k]!, digest };
      });
      await stores.legacy.relink(relinked);
      prev = links.at(-1)!;
      seq = rows.at(-1)!.seq;
    }
    await stores.legacy.moveHead(prev, digest);
    const found =
      verdict.result === 'intact'
        ? 'the legacy chain verified intact'
        : `the legacy chain was found BROKEN at event ${verdict.broken!.seq} (${verdict.broken!.why}) and is not vouched for before it`;
    await this.audit.writeInTx(stores, [
      {
        uuid: randomUUID(),
        when: Math.floor(Date.now() / 1000),
        title: 'LegacyAuditRechained',
        status: verdict.result === 'intact' ? 'ok' : 'error',
        msg: `events 1..${seq} re-chained under the keyed chain at the upgrade to per-person keys, from a legacy sha256 chain of ${verdict.events} events whose head was ${verdict.head}; ${found}`,
        actor: 'system:legacy-upgrade',
        record: null,
        mode: null,
        app: null,
        details: null,
      },
    ]);
    return true;
  }
}
