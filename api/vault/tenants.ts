// Which tenant a request acts in: the X-Bunker-Tenant header, else the host's subdomain, else the token's own.
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/database.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import { tenantSchema } from '../store/schemas.js';
import type { TenantChange, TenantRow, TenantStore } from '../store/tenants.js';
import { badRequest, conflict, forbidden, notFound, Messages } from '../errors.js';
import { PRINCIPAL_CACHE_MS, type Principal } from './credentials.js';
import { nowSeconds } from './durations.js';
import { conflictOnUnique } from '../store/errors.js';

export const TENANT_NAME = /^[a-z0-9]+$/;
const RESERVED_MESSAGE = 'Invalid API request parameter: tenantname: the name is reserved';
const MAIN_UNMARKED = 'Invalid API request parameter: managedby: the main tenant is managed by no tool';
const MARKED_OTHERWISE = 'The tenant carries another owner mark (managedby)';
const RENAME_MARKED = 'The tenant carries an owner mark (managedby): only a call naming it renames the tenant';

export interface TenantInfo {
  tenantid: number;
  tenantname: string;
  tenantorg: string;
  email: string | null;
  /** The owner mark: who manages the tenant (the operator's Tenant resource uid); null when nobody claimed it. */
  managedby: string | null;
}

const present = (t: TenantRow): TenantInfo => ({ tenantid: t.id, tenantname: t.name, tenantorg: t.org, email: t.email, managedby: t.managedby });

/** Names no tenant may take: they would shadow the vault's own host names or the main tenant. */
const RESERVED = new Set(['main', 'www', 'api', 'vault', 'admin', 'root', 'app', 'portal', 'console', 'status', 'metrics', 'localhost', 'default', 'mail', 'static']);

export class Tenants {
  /**
   * Tenant ids by name, for as long as a replica may trust a cached credential (PRINCIPAL_CACHE_MS): a rename or a
   * removal elsewhere reaches this replica within that time. Names that name no tenant are not kept, so a tenant
   * created on another replica is found here at once.
   */
  private readonly byName = new LRUCache<string, { id: number }>({ max: 10_000, ttl: PRINCIPAL_CACHE_MS });

  constructor(
    private readonly db: Database,
    /** STRONGROOM_TENANT_DOMAIN: `<name>.<domain>` selects a tenant by Host; unset, no Host does. */
    private readonly domain?: string,
  ) {}

  private get store() {
    return this.db.global().tenants;
  }

  /** Whether `name` may be given to a tenant: reserved names and the tenant domain's own labels may not. */
  isReserved(name: string): boolean {
    return RESERVED.has(name) || (this.domain?.split('.').includes(name) ?? false);
  }

  async idOf(name: string): Promise<number | null> {
    if (!TENANT_NAME.test(name)) return null;
    const hit = this.byName.get(name);
    if (hit) return hit.id;
    const row = await this.store.byName(name);
    if (!row) return null;
    this.byName.set(name, { id: row.id });
    return row.id;
  }

  /** The tenant name a Host carries: the one label before STRONGROOM_TENANT_DOMAIN, and nothing when unset. */
  nameInHost(host: string | undefined): string | undefined {
    return tenantInHost(host, this.domain);
  }

  /**
   * An explicit header that names another tenant, or no tenant at all, is 403 with the same answer either way,
   * so a caller learns nothing about which tenants exist. The main tenant's root token may act anywhere, but only
   * by the header: the root token never changes tenant through Host, which a client may not control.
   */
  async resolve(principal: Principal, header: string | undefined, host: string | undefined): Promise<number> {
    let tenantId: number | null = null;
    if (header !== undefined && header !== '') {
      tenantId = await this.idOf(header.trim().toLowerCase());
      if (tenantId === null) throw forbidden();
    } else if (principal.kind !== 'root') {
      const sub = this.nameInHost(host);
      if (sub) {
        tenantId = await this.idOf(sub);
        if (tenantId === null) throw forbidden();
      }
    }
    tenantId ??= principal.tenantId;
    const mayCross = principal.kind === 'root' && principal.tenantId === MAIN_TENANT_ID;
    if (tenantId !== principal.tenantId && !mayCross) throw forbidden();
    return tenantId;
  }

  /**
   * A public call's tenant: the one named by header or Host when it exists, else the main tenant; `named` says
   * whether the request named a tenant at all (known or not), which the answer must not reveal.
   */
  async resolvePublic(header: string | undefined, host: string | undefined): Promise<{ tenantId: number; named: boolean }> {
    const name = header?.trim().toLowerCase() || this.nameInHost(host);
    return { tenantId: (name ? await this.idOf(name) : null) ?? MAIN_TENANT_ID, named: !!name };
  }

  forget(name: string): void {
    this.byName.delete(name);
  }

  /**
   * A new tenant: its schema and database role brought to the newest migration first, its row last, so no call
   * finds it by name before it can serve (a call racing the creation is told there is no such tenant, never a 500).
   * A tenant whose schema or row cannot be made is removed again: a failed TenantCreate leaves nothing behind.
   */
  async create(name: string, org: string, email: string | null, managedby: string | null = null): Promise<TenantInfo> {
    if (this.isReserved(name)) throw badRequest(RESERVED_MESSAGE);
    if (await this.store.byName(name)) throw conflict(Messages.duplicateTenant);
    const id = await this.store.nextId();
    try {
      await this.db.migrateTenant(id);
      await conflictOnUnique(Messages.duplicateTenant, () => this.store.insert({ id, name, org, email, managedby: managedby || null }, nowSeconds()));
    } catch (err) {
      await this.db.dropTenant(id);
      throw err;
    }
    this.forget(name);
    return { tenantid: id, tenantname: name, tenantorg: org, email, managedby: managedby || null };
  }

  /** The tenant of that name, read fresh (never from the name cache); null when there is none. */
  async named(name: string): Promise<TenantInfo | null> {
    const row = await this.store.byName(name);
    return row ? present(row) : null;
  }

  /** `store` is the one of the caller's transaction when it has one (the embedded database has one connection). */
  async get(id: number, store: TenantStore = this.store): Promise<TenantInfo> {
    const row = await store.byId(id);
    if (!row) throw notFound(Messages.tenantNotFound);
    return present(row);
  }

  /**
   * The tenant, when `managedby` is undefined or is its owner mark: a tool that names its mark acts only on what it
   * made. The main tenant never carries a mark, so a call naming one is refused there (400) as anywhere the mark
   * differs (409).
   */
  async owned(id: number, managedby: string | undefined, store: TenantStore = this.store): Promise<TenantInfo> {
    const tenant = await this.get(id, store);
    if (managedby === undefined) return tenant;
    if (id === MAIN_TENANT_ID) throw badRequest(MAIN_UNMARKED);
    if (tenant.managedby !== managedby) throw conflict(MARKED_OTHERWISE);
    return tenant;
  }

  /**
   * Absent fields stay. `managedby` sets the owner mark on a tenant that has none (a hand-over) or keeps the one it
   * has; a tenant marked otherwise is 409 until its mark is removed (`''`); the main tenant takes none. A marked
   * tenant keeps its name unless the call names its mark: the tool that owns it finds it by that name, so neither
   * the tenant's own admins nor a main-tenant call that forgot the mark may move it (409).
   */
  async update(id: number, change: TenantChange): Promise<void> {
    const row = await this.store.byId(id);
    if (!row) throw notFound(Messages.tenantNotFound);
    if (Object.values(change).every((v) => v === undefined)) return;
    if (change.managedby) {
      if (id === MAIN_TENANT_ID) throw badRequest(MAIN_UNMARKED);
      if (row.managedby !== null && row.managedby !== change.managedby) throw conflict(MARKED_OTHERWISE);
    }
    if (change.name !== undefined && change.name !== row.name) {
      if (row.managedby !== null && change.managedby !== row.managedby) throw conflict(RENAME_MARKED);
      if (this.isReserved(change.name)) throw badRequest(RESERVED_MESSAGE);
    }
    await conflictOnUnique(Messages.duplicateTenant, () => this.store.update(id, change));
    this.forget(row.name);
    if (change.name) this.forget(change.name);
  }

  /** A page of tenants by id; with `managedby`, only those carrying that owner mark. */
  async list(offset: number, limit: number, managedby?: string): Promise<{ total: number; rows: TenantInfo[] }> {
    const { total, rows } = await this.store.page(offset, limit, managedby);
    return { total, rows: rows.map(present) };
  }

  /**
   * Removes the tenant's schema with all its data, then its row; its credentials and unlocks go with the row. Needs
   * no key: a tenant whose own KEK is gone for good is removed as erased. Answers what was destroyed.
   */
  async remove(id: number): Promise<{ schema: string; personkeys: number }> {
    const row = await this.store.byId(id);
    if (!row) throw notFound(Messages.tenantNotFound);
    const counts = await this.db.stores(id).subjectKeys.countsByVersion();
    await this.db.dropTenant(id);
    this.forget(row.name);
    return { schema: tenantSchema(id), personkeys: [...counts.values()].reduce((a, b) => a + b, 0) };
  }
}

/**
 * `acme.vault.example.com` gives `acme` when the domain is `vault.example.com`; any other host (another domain,
 * deeper or bare names, IP addresses) and any host at all without a domain give nothing.
 */
export function tenantInHost(host: string | undefined, domain: string | undefined): string | undefined {
  if (!host || !domain) return undefined;
  const name = host.replace(/:\d+$/, '').toLowerCase().replace(/\.$/, '');
  if (!name.endsWith(`.${domain}`)) return undefined;
  const label = name.slice(0, -domain.length - 1);
  return TENANT_NAME.test(label) ? label : undefined;
}
