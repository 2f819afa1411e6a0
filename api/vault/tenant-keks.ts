// Tenants' own key-encryption keys, as the api administers them: an HSM object's label per tenant, the tenant key it
// wraps (made inside the tokenizer and the HSM; the api holds it only wrapped), revocation, and their states. The
// keys themselves never reach the api; the tokenizer refuses a revoked or removed KEK's tenant on its own.
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import type { TenantKek } from '../store/tenants.js';
import { TokenizerRejectedError, type TenantKekRef, type TokenizerClient } from '../tokenizer-client.js';
import { badRequest, conflict, notFound, Messages } from '../errors.js';
import { conflictOnUnique } from '../store/errors.js';
import { Periodic } from './periodic.js';

/** How often each replica reads every tenant's KEK (another replica may have set or revoked one). */
const REFRESH_SECONDS = 5;

const TAKEN = 'The key-encryption key is another tenant\'s';
const REVOKED = 'The tenant\'s key-encryption key is revoked: the tenant can only be deleted';
const NONE = 'The tenant has no key-encryption key';

export type KekState = 'up' | 'revoked' | 'unavailable';

export interface KekStatus {
  tenantid: number;
  tenantname: string;
  kek: string;
  state: KekState;
  revoked?: number;
}

const refOf = (k: TenantKek): TenantKekRef => ({ label: k.label, wrapped: k.wrapped, revoked: k.revoked !== null });

export class TenantKeks {
  private readonly schedule: Periodic;
  /** Tenants whose KEK object the HSM no longer holds (removed by hand, not revoked here), as last probed. */
  private gone = new Set<number>();

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    log: Logger,
    /** Woken when a tenant takes a KEK: its existing keys move under the tenant key in the background. */
    private readonly migrate: () => void,
  ) {
    this.schedule = new Periodic(REFRESH_SECONDS, () => this.refresh(), (err) => log.warn({ err: { message: (err as Error).message } }, 'tenant KEKs not refreshed'));
  }

  start(): void {
    this.schedule.start();
  }

  stop(): Promise<void> {
    return this.schedule.stop();
  }

  /**
   * Every tenant's KEK read into the tokenizer client (outside any transaction), and each live one probed in the HSM:
   * a tenant whose object was removed fails closed in every call, not only in those that open a record.
   */
  async refresh(): Promise<void> {
    const keks = await this.db.global().tenants.keks();
    this.tokenizer.knowKeks(new Map([...keks].map(([id, k]) => [id, refOf(k)])));
    const live = [...keks].filter(([, k]) => k.revoked === null);
    const states = await this.tokenizer.tenantKekStatus(live.map(([, k]) => k.label)).catch(() => undefined);
    // The HSM not answering at all is the keyring custody's outage (served from memory for the key-cache TTL).
    if (states) this.gone = new Set(live.filter((_, i) => states[i] === 'missing').map(([id]) => id));
  }

  /** What TenantGet shows of the tenant's KEK: its label, and whether it was revoked. */
  async describe(tenantId: number): Promise<{ kek?: string; kekrevoked?: boolean }> {
    const kek = await this.db.global().tenants.kek(tenantId);
    return kek ? { kek: kek.label, ...(kek.revoked !== null && { kekrevoked: true }) } : {};
  }

  /** A deleted tenant's KEK is no longer sent with anything. */
  forget(tenantId: number): void {
    this.tokenizer.setKek(tenantId, undefined);
  }

  /** Whether the tenant's KEK was revoked or its object removed (as this replica last saw): all its calls fail closed. */
  failsClosed(tenantId: number): boolean {
    return (this.tokenizer.kekOf(tenantId)?.revoked ?? false) || this.gone.has(tenantId);
  }

  /**
   * Puts the tenant under the KEK object `label`: a new tenant key wrapped by it, or, for a tenant with a KEK already,
   * its tenant key moved under the new object (no data key changes). A tenant that had none moves its existing data
   * keys under the tenant key in the background (the rewrap job); reads are served throughout.
   */
  async assign(tenantId: number, label: string): Promise<void> {
    const store = this.db.global().tenants;
    // Its salt known to the tokenizer client now (a tenant just made): outside any transaction.
    await this.tokenizer.prepare(tenantId);
    const current = await store.kek(tenantId);
    if (current === undefined) throw notFound(Messages.tenantNotFound);
    if (current?.revoked) throw conflict(REVOKED);
    if (current?.label === label) return;
    for (const [id, k] of await store.keks()) if (id !== tenantId && k.label === label && k.revoked === null) throw conflict(TAKEN);
    let wrapped: Buffer;
    try {
      wrapped = await this.tokenizer.makeTenantKey(tenantId, label, current ? refOf(current) : undefined);
    } catch (err) {
      if (err instanceof TokenizerRejectedError && err.kind === 'invalid') throw badRequest(`Invalid API request parameter: ${err.reason}`);
      throw err;
    }
    await conflictOnUnique(TAKEN, () => store.setKek(tenantId, label, wrapped));
    this.tokenizer.setKek(tenantId, { label, wrapped, revoked: false });
    this.gone.delete(tenantId);
    if (!current) this.migrate();
  }

  /**
   * Revokes the tenant's KEK: marked revoked first (every call of the tenant fails closed from then on, even if the
   * HSM is away now), then the object destroyed inside the HSM. Called again, it tries the destruction again.
   */
  async revoke(tenantId: number, now: number): Promise<{ kek: string; revoked: number; destroyed: boolean }> {
    const store = this.db.global().tenants;
    const kek = await store.kek(tenantId);
    if (kek === undefined) throw notFound(Messages.tenantNotFound);
    if (kek === null) throw conflict(NONE);
    const revoked = await store.revokeKek(tenantId, now);
    this.tokenizer.setKek(tenantId, { ...refOf(kek), revoked: true });
    try {
      return { kek: kek.label, revoked, destroyed: await this.tokenizer.revokeTenantKek(tenantId, refOf(kek)) };
    } catch (err) {
      if (err instanceof TokenizerRejectedError) throw conflict(err.reason.replace(/^kek: /, ''));
      throw err;
    }
  }

  /** The KEK of each tenant that has one, and its state now (the tokenizer probes each live object in the HSM). */
  async status(): Promise<KekStatus[]> {
    const store = this.db.global().tenants;
    const keks = await store.keks();
    const names = new Map((await store.all()).map((t) => [t.id, t.name]));
    const live = [...keks].filter(([, k]) => k.revoked === null);
    const states = await this.tokenizer.tenantKekStatus(live.map(([, k]) => k.label)).catch(() => live.map(() => 'unavailable'));
    const stateOf = new Map(live.map(([id], i) => [id, states[i] === 'up' ? ('up' as const) : ('unavailable' as const)]));
    return [...keks]
      .sort(([a], [b]) => a - b)
      .map(([id, k]) => ({
        tenantid: id,
        tenantname: names.get(id) ?? '',
        kek: k.label,
        state: k.revoked !== null ? 'revoked' : (stateOf.get(id) ?? 'unavailable'),
        ...(k.revoked !== null ? { revoked: k.revoked } : {}),
      }));
  }
}
