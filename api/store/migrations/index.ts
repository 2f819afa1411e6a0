// The ordered migration sets: one for the global schema, one run in every tenant's schema.
import { Global0001Init } from './Global0001Init.js';
import { Global0002Roles } from './Global0002Roles.js';
import { Global0003Login } from './Global0003Login.js';
import { Global0004Ownership } from './Global0004Ownership.js';
import { Global0005Credentials } from './Global0005Credentials.js';
import { Global0006Bounds } from './Global0006Bounds.js';
import { Global0007TenantKeySalt } from './Global0007TenantKeySalt.js';
import { Global0008TenantOwnership } from './Global0008TenantOwnership.js';
import { Global0009TenantKek } from './Global0009TenantKek.js';
import { Global0010TenantKekRetired } from './Global0010TenantKekRetired.js';
import { Tenant0001Users } from './Tenant0001Users.js';
import { Tenant0002AuditAppend } from './Tenant0002AuditAppend.js';
import { Tenant0003Tokens } from './Tenant0003Tokens.js';
import { Tenant0004Groups } from './Tenant0004Groups.js';
import { Tenant0005Appdata } from './Tenant0005Appdata.js';
import { Tenant0006Subjects } from './Tenant0006Subjects.js';
import { Tenant0007Files } from './Tenant0007Files.js';
import { Tenant0008SubjectKeys } from './Tenant0008SubjectKeys.js';
import { Tenant0009KeyedAudit } from './Tenant0009KeyedAudit.js';
import { Tenant0010AuditQueue } from './Tenant0010AuditQueue.js';
import { Tenant0011AuditCheckpointed } from './Tenant0011AuditCheckpointed.js';
import { Tenant0012AuditAppendQueued } from './Tenant0012AuditAppendQueued.js';
import { Tenant0013SealedStorage } from './Tenant0013SealedStorage.js';
import { Tenant0014AuditSearchPath } from './Tenant0014AuditSearchPath.js';
import { Tenant0015AuditQueueMac } from './Tenant0015AuditQueueMac.js';

export const globalMigrations = [Global0001Init, Global0002Roles, Global0003Login, Global0004Ownership, Global0005Credentials, Global0006Bounds, Global0007TenantKeySalt, Global0008TenantOwnership, Global0009TenantKek, Global0010TenantKekRetired];
export const tenantMigrations = [Tenant0001Users, Tenant0002AuditAppend, Tenant0003Tokens, Tenant0004Groups, Tenant0005Appdata, Tenant0006Subjects, Tenant0007Files, Tenant0008SubjectKeys, Tenant0009KeyedAudit, Tenant0010AuditQueue, Tenant0011AuditCheckpointed, Tenant0012AuditAppendQueued, Tenant0013SealedStorage, Tenant0014AuditSearchPath, Tenant0015AuditQueueMac];
