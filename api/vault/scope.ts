// Where a vault call runs: the stores its statements use (the tenant's, on the pool or in a write transaction),
// the tenant, and the time it takes as now. Who asks is the operation's business (its gate, ops/gate.ts); a vault
// call that depends on who asks takes the principal as a parameter of its own (`Asked`).
import type { Stores } from '../store/stores.js';
import type { Principal } from './credentials.js';

export interface Scope {
  /** The tenant's stores: in the call's transaction for writes (`stores.sql.inTransaction`). */
  stores: Stores;
  tenantId: number;
  now: number;
}

/** A scope with who asks, for the few vault calls whose answer depends on it (a login xtoken's own requests). */
export type Asked = Scope & { principal?: Pick<Principal, 'kind' | 'userToken'> };
