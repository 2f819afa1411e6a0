// Every store, bound to one manager (an operation's connection, or its transaction) and, for a tenant's tables, to
// its tenant: the one way an operation or a vault service reaches the database.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppStore } from './appdata.js';
import { AuditStore } from './audit.js';
import { AuditCheckpointedStore } from './audit-checkpointed.js';
import { ConsentStore } from './consent.js';
import { CredentialStore } from './credentials.js';
import { FileStore } from './files.js';
import { GroupStore } from './groups.js';
import { LockStore } from './locks.js';
import { LegacyStore } from './legacy.js';
import { LoginStore } from './logins.js';
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

/** The stores of the global schema. */
export class GlobalStores {
  constructor(readonly em: EntityManager) {}

  get credentials(): CredentialStore {
    return new CredentialStore(this.em);
  }
  get logins(): LoginStore {
    return new LoginStore(this.em);
  }
  get rateLimits(): RateLimitClient {
    return new RateLimitClient(this.em);
  }
  get roles(): RoleStore {
    return new RoleStore(this.em);
  }
  get settings(): SettingStore {
    return new SettingStore(this.em);
  }
  get sharedIndex(): SharedIndexStore {
    return new SharedIndexStore(this.em);
  }
  get tenants(): TenantStore {
    return new TenantStore(this.em);
  }
  get unlocks(): UnlockStore {
    return new UnlockStore(this.em);
  }
}

/** The stores of one tenant, and the global ones on the same connection (a transaction sees its own writes). */
export class Stores extends GlobalStores {
  constructor(
    em: EntityManager,
    readonly tenantId: number,
  ) {
    super(em);
  }

  get appdata(): AppStore {
    return new AppStore(this.em, this.tenantId);
  }
  get audit(): AuditStore {
    return new AuditStore(this.em, this.tenantId);
  }
  get auditCheckpointed(): AuditCheckpointedStore {
    return new AuditCheckpointedStore(this.em, this.tenantId);
  }
  get consent(): ConsentStore {
    return new ConsentStore(this.em, this.tenantId);
  }
  get files(): FileStore {
    return new FileStore(this.em, this.tenantId);
  }
  get groups(): GroupStore {
    return new GroupStore(this.em, this.tenantId);
  }
  get legacy(): LegacyStore {
    return new LegacyStore(this.em, this.tenantId);
  }
  get locks(): LockStore {
    return new LockStore(this.em, this.tenantId);
  }
  get requests(): RequestStore {
    return new RequestStore(this.em, this.tenantId);
  }
  get sessions(): SessionStore {
    return new SessionStore(this.em, this.tenantId);
  }
  get shared(): SharedStore {
    return new SharedStore(this.em, this.tenantId);
  }
  get stats(): StatsStore {
    return new StatsStore(this.em, this.tenantId);
  }
  get subjectKeys(): SubjectKeyStore {
    return new SubjectKeyStore(this.em, this.tenantId);
  }
  get tokens(): TokenStore {
    return new TokenStore(this.em, this.tenantId);
  }
  get users(): UserStore {
    return new UserStore(this.em, this.tenantId);
  }
}

/** The stores of a scope: the ones it carries, else ones bound to its manager and tenant. */
export function storesOf(scope: { em: EntityManager; tenantId: number; stores?: Stores | undefined }): Stores {
  return scope.stores ?? new Stores(scope.em, scope.tenantId);
}
