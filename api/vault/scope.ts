// Where a vault call runs: the tenant, the time it takes as now, the manager (and stores) its statements use, and
// who asks, with the judgements an operation's gate lends it for the person it reaches.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Stores } from '../store/stores.js';
import type { UserRow } from '../store/users.js';
import type { Principal } from './credentials.js';

export interface Scope {
  em: EntityManager;
  tenantId: number;
  now: number;
  /** The stores on `em` for this tenant, when the caller has them (an operation's context does). */
  stores?: Stores;
  /** Known to the caller; when absent it is asked of `em` (which, for a lazily forked manager, forks it). */
  inTransaction?: boolean;
  /** Who asks: a login xtoken may reach its own record, and others' only as its group roles' policies allow. */
  principal?: Principal;
  /** Throws unless the caller may reach this other person's record (set for login xtokens). */
  authoriseOther?: (userToken: string) => Promise<void>;
  /** Judges a role's conditions about the person once found (set for roles whose policies have them). */
  authoriseSubject?: ((row: UserRow | null, em: EntityManager) => Promise<void>) | undefined;
}
