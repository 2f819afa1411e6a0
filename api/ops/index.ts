// The explicit, sorted list of wire operations this vault serves.
import type { OpDefinition } from './define.js';
import { AuditGetEvent } from './audit/AuditGetEvent.js';
import { AuditListUserEvents } from './audit/AuditListUserEvents.js';
import { BulkListAllUsers } from './bulk/BulkListAllUsers.js';
import { BulkListUnlock } from './bulk/BulkListUnlock.js';
import { BulkListUsers } from './bulk/BulkListUsers.js';
import { UserCreate } from './users/UserCreate.js';
import { UserCreateBulk } from './users/UserCreateBulk.js';
import { UserDelete } from './users/UserDelete.js';
import { UserGet } from './users/UserGet.js';
import { UserListVersions } from './users/UserListVersions.js';
import { UserPatch } from './users/UserPatch.js';
import { UserUpdate } from './users/UserUpdate.js';

export const operations: readonly OpDefinition[] = [
  AuditGetEvent,
  AuditListUserEvents,
  BulkListAllUsers,
  BulkListUnlock,
  BulkListUsers,
  UserCreate,
  UserCreateBulk,
  UserDelete,
  UserGet,
  UserListVersions,
  UserPatch,
  UserUpdate,
] as unknown as OpDefinition[];
