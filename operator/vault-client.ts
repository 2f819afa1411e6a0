// The operator's client of the vault's own HTTP API (POST /v2/<Operation>), acting with the root token.
// The operator never touches the database: everything it does to the vault goes through here.

/**
 * The vault answered with an error: its HTTP status and the contract's message (never a token). Named apart from
 * the api's own VaultError, which the api throws; this one is what the operator reads off the wire.
 */
export class VaultAnswerError extends Error {
  override name = 'VaultAnswerError';
  constructor(
    readonly operation: string,
    readonly status: number,
    message: string,
  ) {
    super(`${operation}: ${status} ${message}`);
  }
}

/** The vault could not be reached or did not answer in time. */
export class VaultUnavailableError extends Error {
  override name = 'VaultUnavailableError';
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super(`${operation}: the vault is unreachable (${(cause as Error).name === 'TimeoutError' ? 'timeout' : ((cause as Error).message ?? 'error')})`);
  }
}

export interface TenantInfo {
  tenantid: number;
  tenantname: string;
  tenantorg: string;
  email: string | null;
  /** The owner mark: the uid of the Tenant resource that made it; absent when nobody claimed it. */
  managedby?: string;
  /** The label of the tenant's own key-encryption key; absent when it has none. */
  kek?: string;
}

/** A tenant as TenantListTenants shows it. */
export type TenantRow = Omit<TenantInfo, 'email'>;

export interface PolicyInfo {
  policyid: number;
  policyname: string;
  policydesc: string;
  policy: unknown;
  /** The owner mark: the uid of the resource that made it; absent when nobody claimed it. */
  managedby?: string;
}

export interface RoleInfo {
  roleid: number;
  rolename: string;
  roledesc: string;
  /** The owner mark: the uid of the resource that made it; absent when nobody claimed it. */
  managedby?: string;
  /** The policies linked to the role. */
  policies: { policyid: number; policyname: string }[];
}

export interface VaultClientOptions {
  url: string;
  rootToken: () => string;
  timeoutMs?: number;
  /** Called once per call with the operation and its HTTP status (0 when unreachable), for metrics. */
  observe?: (operation: string, status: number) => void;
}

export class VaultClient {
  constructor(private readonly opts: VaultClientOptions) {}

  /** One operation; `token` and `tenant` default to the root token in its own (main) tenant. */
  async call<T = Record<string, unknown>>(operation: string, body: object = {}, as: { token?: string; tenant?: string } = {}): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-bunker-token': as.token ?? this.opts.rootToken() };
    if (as.tenant) headers['x-bunker-tenant'] = as.tenant;
    let res: Response;
    try {
      res = await fetch(`${this.opts.url}/v2/${operation}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch (err) {
      this.opts.observe?.(operation, 0);
      throw new VaultUnavailableError(operation, err);
    }
    this.opts.observe?.(operation, res.status);
    let answer: Record<string, unknown>;
    try {
      answer = (await res.json()) as Record<string, unknown>;
    } catch (err) {
      throw res.ok ? new VaultUnavailableError(operation, err) : new VaultAnswerError(operation, res.status, res.statusText);
    }
    if (!res.ok || answer.status !== 'ok') throw new VaultAnswerError(operation, res.status, typeof answer.message === 'string' ? answer.message : 'error');
    return answer as T;
  }

  /** A tenant carrying the owner mark `managedby`, and its admin token (shown only now). */
  tenantCreate(input: { tenantname: string; tenantorg: string; email?: string; managedby: string; kek?: string }) {
    return this.call<{ tenantid: number; xtoken: string }>('TenantCreate', input);
  }

  /** The tenant of that name, with its owner mark; undefined when the vault has none. */
  async tenantByName(tenantname: string): Promise<TenantInfo | undefined> {
    return this.call<TenantInfo>('TenantGet', { tenantname }).catch(notFoundAs(undefined));
  }

  /** Changes only a tenant carrying the owner mark `managedby` (the vault answers 409 otherwise). */
  tenantUpdate(input: { tenantid: number; tenantname?: string; tenantorg?: string; email?: string; managedby: string; kek?: string }) {
    return this.call('TenantUpdate', input);
  }

  /** Every tenant carrying the owner mark `managedby`, whatever its name, by id (the list shows no email). */
  async tenantsMarked(managedby: string): Promise<TenantRow[]> {
    const found: TenantRow[] = [];
    for (;;) {
      const page = await this.call<{ total: number; rows: TenantRow[] }>('TenantListTenants', { managedby, offset: found.length, limit: PAGE });
      found.push(...page.rows);
      if (page.rows.length === 0 || found.length >= page.total) return found;
    }
  }

  /** true when it was deleted now, false when the vault had no such tenant; only one carrying the owner mark. */
  async tenantDelete(tenantid: number, managedby: string): Promise<boolean> {
    return this.call('TenantDelete', { tenantid, managedby }).then(() => true, notFoundAs(false));
  }

  /** A new admin token for a tenant carrying the owner mark `managedby`; every earlier one stops working. */
  tenantRotateAdminToken(tenantid: number, managedby: string) {
    return this.call<{ tenantid: number; xtoken: string }>('TenantRotateAdminToken', { tenantid, managedby });
  }

  roleCreate(input: { rolename: string; roledesc: string; managedby: string }) {
    return this.call<{ roleid: number }>('RoleCreate', input);
  }

  /** undefined when the vault has no such role. */
  async roleGet(rolename: string): Promise<RoleInfo | undefined> {
    return this.call<RoleInfo>('RoleGet', { rolename }).catch(notFoundAs(undefined));
  }

  roleUpdate(input: { roleid: number; roledesc: string }) {
    return this.call('RoleUpdate', input);
  }

  async policyGet(policyname: string): Promise<PolicyInfo | undefined> {
    return this.call<PolicyInfo>('PolicyGet', { policyname }).catch(notFoundAs(undefined));
  }

  async policyList(): Promise<Omit<PolicyInfo, 'policy'>[]> {
    return (await this.call<{ rows: Omit<PolicyInfo, 'policy'>[] }>('PolicyListAllPolicies')).rows;
  }

  policyCreate(input: { policyname: string; policydesc: string; policy: unknown; managedby: string }) {
    return this.call<{ policyid: number }>('PolicyCreate', input);
  }

  policyUpdate(input: { policyid: number; policydesc: string; policy: unknown }) {
    return this.call('PolicyUpdate', input);
  }

  roleLinkPolicy(input: { roleid: number; policyid: number }) {
    return this.call<{ roleid: number }>('RoleLinkPolicy', input);
  }

  /** true when it was deleted now, false when the vault had no such role (its xtokens go with it). */
  async roleDelete(roleid: number): Promise<boolean> {
    return this.call('RoleDelete', { roleid }).then(() => true, notFoundAs(false));
  }

  /** true when it was deleted now, false when the vault had no such policy (its links go with it). */
  async policyDelete(policyid: number): Promise<boolean> {
    return this.call('PolicyDelete', { policyid }).then(() => true, notFoundAs(false));
  }

  /**
   * A role xtoken made in `tenant`, living `seconds` unless the vault caps it. The header names the tenant, and a name
   * can change hands: the vault makes the token only if the tenant it acts in carries the mark `tenant.managedby`.
   */
  xtokenCreateForRole(rolename: string, tenant: { name: string; managedby: string }, seconds: number) {
    return this.call<{ xtoken: string; xtokenid: string; expires: number; capped?: boolean }>(
      'XTokenCreateForRole',
      { rolename, finaltime: `${seconds}s`, managedby: tenant.managedby },
      { tenant: tenant.name },
    );
  }

  /** true when it was revoked now, false when the vault had no such live xtoken. */
  async xtokenRevoke(xtokenid: string): Promise<boolean> {
    return this.call('XTokenRevoke', { xtokenid }).then(() => true, notFoundAs(false));
  }
}

/** Rows asked for per TenantListTenants call. */
const PAGE = 100;

function notFoundAs<T>(value: T) {
  return (err: unknown): T => {
    if (err instanceof VaultAnswerError && err.status === 404) return value;
    throw err;
  };
}
