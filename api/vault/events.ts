// What one service announces and others act on, typed. Each service that emits or listens is given the hub when
// it is built (services.ts wires who listens to what); no callback is assigned to a service after construction.
// Handlers run synchronously, in the emitter's turn, in the order they were added: a handler that throws fails
// the emitter's step, as a direct call would.
import type { Scope } from './scope.js';

export interface VaultEvents {
  /** A person was removed in `scope`'s transaction, their login xtokens with them: act once it commits. */
  personRemoved: { scope: Scope; token: string };
  /** A bulk create stored `count` people in `scope`'s transaction (the planner's statistics follow). */
  peopleLoaded: { scope: Scope; count: number };
  /** A batch of `events` audit events was appended to the tenant's trail (checkpoints count towards the next). */
  auditAppended: { tenantId: number; events: number };
  /** Privacy events of a tenant committed to its outbox: its dispatcher may deliver them now. */
  privacyEventsCommitted: { tenantId: number };
  /** A tenant's data finished its upgrade from the legacy format: its calls are served again. */
  tenantUpgraded: { tenantId: number };
}

type Handler<K extends keyof VaultEvents> = (event: VaultEvents[K]) => void;

export class Events {
  private readonly handlers: { [K in keyof VaultEvents]?: Handler<K>[] } = {};

  on<K extends keyof VaultEvents>(name: K, handler: Handler<K>): void {
    ((this.handlers[name] ??= []) as Handler<K>[]).push(handler);
  }

  emit<K extends keyof VaultEvents>(name: K, event: VaultEvents[K]): void {
    for (const handler of (this.handlers[name] ?? []) as Handler<K>[]) handler(event);
  }
}

/** Whether a tenant's data is being upgraded from the legacy format (its trail is then neither checkpointed nor verified). */
export interface MigrationState {
  isMigrating(tenantId: number): boolean;
}
