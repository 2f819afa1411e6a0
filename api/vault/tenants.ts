// Which tenant a request acts in: the X-Bunker-Tenant header, else the host's subdomain, else the token's own.
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/database.js';
import { MAIN_TENANT_ID } from '../store/database.js';
import { Tenant } from '../store/entities/global.js';
import { forbidden } from '../http/errors.js';
import type { Principal } from './credentials.js';

const TENANT_NAME = /^[a-z0-9]+$/;

export class Tenants {
  private readonly byName = new LRUCache<string, { id: number | null }>({ max: 10_000, ttl: 10_000 });

  constructor(private readonly db: Database) {}

  async idOf(name: string): Promise<number | null> {
    if (!TENANT_NAME.test(name)) return null;
    const hit = this.byName.get(name);
    if (hit) return hit.id;
    const row = await this.db.global().findOne(Tenant, { name }, { disableIdentityMap: true });
    const id = row ? row.id : null;
    this.byName.set(name, { id });
    return id;
  }

  /**
   * An explicit header that names another tenant, or no tenant at all, is 403 with the same answer either way,
   * so a caller learns nothing about which tenants exist. The main tenant's root token may act anywhere.
   */
  async resolve(principal: Principal, header: string | undefined, host: string | undefined): Promise<number> {
    let tenantId: number | null = null;
    if (header !== undefined && header !== '') {
      tenantId = await this.idOf(header.trim().toLowerCase());
      if (tenantId === null) throw forbidden();
    } else {
      const sub = subdomainOf(host);
      if (sub) tenantId = await this.idOf(sub);
    }
    tenantId ??= principal.tenantId;
    const mayCross = principal.kind === 'root' && principal.tenantId === MAIN_TENANT_ID;
    if (tenantId !== principal.tenantId && !mayCross) throw forbidden();
    return tenantId;
  }

  forget(name: string): void {
    this.byName.delete(name);
  }
}

/** `acme.vault.example` gives `acme`; localhost, bare names and IP addresses give nothing. */
export function subdomainOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  if (name.startsWith('[') || /^\d+(\.\d+){3}$/.test(name)) return undefined;
  const labels = name.split('.');
  if (labels.length < 2) return undefined;
  return labels[0];
}
