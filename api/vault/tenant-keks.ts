// Tenants' own key-encryption keys, as the api administers them: an HSM object's label per tenant, the tenant key it
// wraps (made inside the tokenizer and the HSM; the api holds it only wrapped), revocation, and their states. The
// keys themselves never reach the api; the tokenizer refuses a revoked or removed KEK's tenant on its own.
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import type { TenantKek } from '../store/tenants.js';
import { TokenizerRejectedError, type TenantKekRef, type TokenizerClient } from '../tokenizer-client.js';
import { badRequest, conflict, notFound, Messages, VaultError } from '../errors.js';
import { MAIN_TENANT_ID } from '../store/database.js';
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
    private readonly log: Logger,
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
   * keys under the tenant key in the background (the rewrap job); reads are served throughout. The tenant's row is
   * locked from the check to the commit, so a revocation waits for the move or the move sees the revocation. Once the
   * move has committed (never before) the object moved off is destroyed; one that cannot be destroyed now stays
   * recorded, and TenantRevokeKek and TenantDelete destroy it.
   */
  async assign(tenantId: number, label: string): Promise<void> {
    if (tenantId === MAIN_TENANT_ID) throw badRequest(Messages.mainTenantKek);
    // Its salt known to the tokenizer client now (a tenant just made): outside any transaction.
    await this.tokenizer.prepare(tenantId);
    const now = Math.floor(Date.now() / 1000);
    const moved = await this.db.writeGlobal(async ({ tenants: store }) => {
      const current = await store.lockKek(tenantId);
      if (current === undefined) throw notFound(Messages.tenantNotFound);
      if (current?.revoked) throw conflict(REVOKED);
      if (current?.label === label) return 'same' as const;
      for (const [id, k] of await store.keks()) if (id !== tenantId && k.label === label && k.revoked === null) throw conflict(TAKEN);
      const wrapped = await this.makeTenantKey(tenantId, label, current);
      if (current) await store.retireKek(tenantId, current.label, current.wrapped, now);
      if (!(await conflictOnUnique(TAKEN, () => store.setKek(tenantId, label, wrapped)))) throw conflict(REVOKED);
      return { current, wrapped };
    });
    if (moved === 'same') return;
    this.tokenizer.setKek(tenantId, { label, wrapped: moved.wrapped, revoked: false });
    this.gone.delete(tenantId);
    if (!moved.current) return this.migrate();
    await this.destroyRetired(tenantId).catch((err: unknown) =>
      this.log.warn({ tenant: tenantId, err: { message: (err as Error).message } }, 'the KEK object a tenant moved off is not destroyed yet: TenantRevokeKek or TenantDelete will'),
    );
  }

  private async makeTenantKey(tenantId: number, label: string, current: TenantKek | null): Promise<Buffer> {
    try {
      return await this.tokenizer.makeTenantKey(tenantId, label, current ? refOf(current) : undefined);
    } catch (err) {
      if (err instanceof TokenizerRejectedError && err.kind === 'invalid') throw badRequest(`Invalid API request parameter: ${err.reason}`);
      throw err;
    }
  }

  /**
   * Revokes the tenant's KEK: marked revoked first (every call of the tenant fails closed from then on, even if the
   * HSM is away now), then the object destroyed inside the HSM, and every object the tenant moved off. Called again,
   * it tries the destructions again.
   */
  async revoke(tenantId: number, now: number): Promise<{ kek: string; revoked: number; destroyed: boolean }> {
    const { kek, revoked } = await this.db.writeGlobal(async ({ tenants: store }) => {
      const current = await store.lockKek(tenantId);
      if (current === undefined) throw notFound(Messages.tenantNotFound);
      if (current === null) throw conflict(NONE);
      return { kek: current, revoked: await store.revokeKek(tenantId, now) };
    });
    this.tokenizer.setKek(tenantId, { ...refOf(kek), revoked: true });
    let destroyed: boolean;
    try {
      destroyed = await this.tokenizer.revokeTenantKek(tenantId, refOf(kek));
    } catch (err) {
      if (err instanceof TokenizerRejectedError) throw conflict(err.reason.replace(/^kek: /, ''));
      throw err;
    }
    await this.destroyRetired(tenantId);
    return { kek: kek.label, revoked, destroyed };
  }

  /**
   * Before a tenant is deleted: its KEK revoked and every object that ever wrapped its key destroyed (deletion is
   * crypto-shredding too). An object that proves not to be the tenant's is left alone; an HSM away throws (503), and
   * the tenant stays, revoked, for the deletion to be tried again.
   */
  async shred(tenantId: number, now: number): Promise<void> {
    if (!(await this.db.global().tenants.kek(tenantId))) return;
    await this.revoke(tenantId, now).catch((err: unknown) => {
      if (!(err instanceof VaultError && err.status === 409)) throw err;
      this.log.warn({ tenant: tenantId, err: { message: err.message } }, 'a deleted tenant\'s KEK object is not destroyed: remove it with the HSM\'s own tool');
    });
  }

  /** Destroys each recorded object the tenant moved off; one gone already, or not the tenant's, is done with too. */
  private async destroyRetired(tenantId: number): Promise<void> {
    const store = this.db.global().tenants;
    for (const old of await store.retiredKeks(tenantId)) {
      try {
        await this.tokenizer.revokeTenantKek(tenantId, { label: old.label, wrapped: old.wrapped, revoked: true });
      } catch (err) {
        // The object under that label does not open this tenant's old key: the tenant's object is gone already.
        if (!(err instanceof TokenizerRejectedError)) throw err;
        if (!/does not open this tenant's key/.test(err.reason)) throw conflict(err.reason.replace(/^kek: /, ''));
      }
      await store.retiredDestroyed(tenantId, old.label, old.wrapped, Math.floor(Date.now() / 1000));
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
