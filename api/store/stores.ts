// Every store, bound to one handle (the pool, or a transaction) and, for a tenant's tables, to its tenant: the one
// way an operation or a vault service reaches the database. Made by the Database (`stores`, `global`, `write`).
import type { Sql } from './sql.js';
import type { TenantPlaces } from './tenant-tables.js';
import { AppStore } from './appdata.js';
import { AuditStore } from './audit.js';
import { AuditCheckpointedStore } from './audit-checkpointed.js';
import { AuditSinkCursorStore } from './audit-sink-cursors.js';
import { ConsentStore } from './consent.js';
import { CredentialStore } from './credentials.js';
import { EventSubscriptionStore } from './event-subscriptions.js';
import { FileStore } from './files.js';
import { GroupStore } from './groups.js';
import { LockStore } from './locks.js';
import { LegacyStore } from './legacy.js';
import { LoginStore } from './logins.js';
import { OverviewStore } from './overview.js';
import { PrivacyEventStore } from './privacy-events.js';
import { RateLimitClient } from './rate-limits.js';
import { RequestStore } from './requests.js';
import { RoleStore } from './roles.js';
import { SessionStore } from './sessions.js';
import { SettingStore } from './settings.js';
import { SharedIndexStore, SharedStore } from './shared.js';
import { StatsStore } from './stats.js';
import { SubjectKeyStore } from './subject-keys.js';
import { TenantStore } from './tenants.js';
import { TokenStore } from './tokens.js';
import { UnlockStore } from './unlocks.js';
import { UserStore } from './users.js';

/** The stores of the global schema, as the vault's own user (or in the transaction they were made for). */
export class GlobalStores {
  constructor(readonly sql: Sql) {}

  get auditSinkCursors(): AuditSinkCursorStore {
    return new AuditSinkCursorStore(this.sql);
  }
  get credentials(): CredentialStore {
    return new CredentialStore(this.sql);
  }
  get logins(): LoginStore {
    return new LoginStore(this.sql);
  }
  get rateLimits(): RateLimitClient {
    return new RateLimitClient(this.sql);
  }
  get roles(): RoleStore {
    return new RoleStore(this.sql);
  }
  get settings(): SettingStore {
    return new SettingStore(this.sql);
  }
  get sharedIndex(): SharedIndexStore {
    return new SharedIndexStore(this.sql);
  }
  get tenants(): TenantStore {
    return new TenantStore(this.sql);
  }
  get unlocks(): UnlockStore {
    return new UnlockStore(this.sql);
  }
}

/**
 * The stores of one tenant, on the tenant's handle (its transaction, or its pool as the tenant's database role),
 * and the global ones as the vault's own user outside a transaction (in the same transaction inside one: it sees
 * its own writes). `sql` is the global handle: in a transaction both are the transaction.
 */
export class Stores extends GlobalStores {
  constructor(
    private readonly tenantSql: Sql,
    readonly tenantId: number,
    private readonly places: TenantPlaces,
  ) {
    super(places.vault);
  }

  /**
   * Another tenant's stores as the vault's own user, in this transaction if there is one: for main-tenant
   * operations, which reach every tenant's people (their transactions run as the vault's own user).
   */
  inTenant(tenantId: number): Stores {
    return new Stores(this.places.vault, tenantId, this.places);
  }

  get appdata(): AppStore {
    return new AppStore(this.tenantSql, this.tenantId, this.places);
  }
  get audit(): AuditStore {
    return new AuditStore(this.tenantSql, this.tenantId, this.places);
  }
  get auditCheckpointed(): AuditCheckpointedStore {
    return new AuditCheckpointedStore(this.tenantSql, this.tenantId, this.places);
  }
  get consent(): ConsentStore {
    return new ConsentStore(this.tenantSql, this.tenantId, this.places);
  }
  get eventSubscriptions(): EventSubscriptionStore {
    return new EventSubscriptionStore(this.tenantSql, this.tenantId, this.places);
  }
  get files(): FileStore {
    return new FileStore(this.tenantSql, this.tenantId, this.places);
  }
  get groups(): GroupStore {
    return new GroupStore(this.tenantSql, this.tenantId, this.places);
  }
  get legacy(): LegacyStore {
    return new LegacyStore(this.tenantSql, this.tenantId, this.places);
  }
  get locks(): LockStore {
    return new LockStore(this.tenantSql, this.tenantId, this.places);
  }
  get overview(): OverviewStore {
    return new OverviewStore(this.tenantSql, this.tenantId, this.places);
  }
  get privacyEvents(): PrivacyEventStore {
    return new PrivacyEventStore(this.tenantSql, this.tenantId, this.places);
  }
  get requests(): RequestStore {
    return new RequestStore(this.tenantSql, this.tenantId, this.places);
  }
  get sessions(): SessionStore {
    return new SessionStore(this.tenantSql, this.tenantId, this.places);
  }
  get shared(): SharedStore {
    return new SharedStore(this.tenantSql, this.tenantId, this.places);
  }
  get stats(): StatsStore {
    return new StatsStore(this.tenantSql, this.tenantId, this.places);
  }
  get subjectKeys(): SubjectKeyStore {
    return new SubjectKeyStore(this.tenantSql, this.tenantId, this.places);
  }
  get tokens(): TokenStore {
    return new TokenStore(this.tenantSql, this.tenantId, this.places);
  }
  get users(): UserStore {
    return new UserStore(this.tenantSql, this.tenantId, this.places);
  }
}
