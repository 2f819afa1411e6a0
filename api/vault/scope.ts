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
  /**
   * Judges the person the call reached (or that it reached nobody) for whoever asks: an operation's gate
   * (ops/gate.ts). Absent for the vault's own work, which judges nobody.
   */
  gate?: PersonGate;
}

/** What a vault call asks of the caller's gate when it finds a person: throw 403 unless the caller may reach them. */
export interface PersonGate {
  person(row: UserRow | null, em: EntityManager): Promise<void>;
}
