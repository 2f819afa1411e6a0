// The database remembers which keyring sealed it: a sentinel sealed at its first start. A tokenizer whose keyring
// cannot open it (a restored database with the wrong keyring, a new keyring by mistake) makes the api refuse to
// serve and say which keyring it expects, by its public id, instead of answering 500s.
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { TokenizerRejectedError, type TokenizerClient } from '../tokenizer-client.js';
import type { SubjectKeys } from './subject-keys.js';

const SENTINEL_TEXT = 'strongroom keyring sentinel v1';
// Sealed under the main tenant's key, in a table and row no data uses.
const TENANT = 1;
const TABLE = 'keyring_sentinel';
const ROW = 'sentinel';
export const SENTINEL_KEY = 'keyring.sentinel';
export const KEYRING_ID_KEY = 'keyring.id';

/**
 * `migrating`: some tenants hold data sealed before per-person keys, which the background upgrade (legacy.ts) is
 * resealing; those tenants' calls answer 503 until it is done, the others are served.
 */
export type KeyringState = 'unchecked' | 'ok' | 'mismatch' | 'migrating';

/** How often a replica that is not the one upgrading looks again whether a tenant is done. */
const MIGRATING_RECHECK_MS = 2_000;

export class KeyringCheck {
  state: KeyringState = 'unchecked';
  /** The keyring id the database expects, once known. */
  expected: string | undefined;
  private running: Promise<KeyringState> | undefined;
  /** Tenants still holding legacy data, as of the last look. */
  private readonly migrating = new Set<number>();
  private lookedAt = 0;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly tokenizer: TokenizerClient,
    private readonly log: Logger,
    private readonly keys: SubjectKeys,
  ) {}

  /** Checks once at a time; a tokenizer that cannot be reached leaves the state unchecked (asked again later). */
  check(): Promise<KeyringState> {
    if (this.state === 'ok') return Promise.resolve('ok');
    if (this.state === 'migrating') return this.lookAgain().then(() => this.state);
    return (this.running ??= this.run().finally(() => (this.running = undefined)));
  }

  private async run(): Promise<KeyringState> {
    const info = await this.tokenizer.keyringInfo(2_000);
    const settings = this.db.global().settings;
    let sealed = await settings.get(SENTINEL_KEY);
    // A database from before sentinels that holds legacy data: the keyring must open that data before the sentinel is
    // sealed with it, or a wrong keyring given first would be taken for the database's own for good.
    if (sealed === null && !(await this.opensLegacyData())) {
      this.log.error({ tokenizerKeyring: info.keyring_id }, 'the tokenizer\'s keyring cannot open this legacy database\'s data: not serving until the keyring that sealed it is given');
      this.state = 'mismatch';
      return this.state;
    }
    if (sealed === null) {
      const made = await this.tokenizer.run(TENANT, { seal: [{ table: TABLE, rowId: ROW, plaintext: Buffer.from(SENTINEL_TEXT) }] });
      await settings.setIfAbsent({ [SENTINEL_KEY]: made.sealed[0]!.toString('base64'), [KEYRING_ID_KEY]: info.keyring_id });
      sealed = (await settings.get(SENTINEL_KEY))!;
    }
    this.expected = (await settings.get(KEYRING_ID_KEY)) ?? undefined;
    let state: KeyringState;
    try {
      const { opened } = await this.tokenizer.run(TENANT, { open: [{ table: TABLE, rowId: ROW, ciphertext: Buffer.from(sealed, 'base64') }] });
      state = opened[0]!.toString() === SENTINEL_TEXT ? 'ok' : 'mismatch';
    } catch (err) {
      if (!(err instanceof TokenizerRejectedError)) throw err;
      state = 'mismatch';
    }
    const tenants = (await this.db.global().tenants.all()).map((t) => t.id);
    if (state === 'ok') {
      for (const id of tenants) if (await this.db.stores(id).legacy.pending()) this.migrating.add(id);
      this.lookedAt = Date.now();
      if (this.migrating.size) {
        state = 'migrating';
        this.log.warn(
          { tenants: [...this.migrating] },
          'this database holds data sealed before per-person keys: it is being upgraded in the background; calls on these tenants answer 503 until then',
        );
      }
    }
    // Every tenant's own data key exists before the first request can need it; a failure leaves the check to rerun.
    if (state === 'ok' || state === 'migrating') await this.keys.ensureTenantKeys(tenants, Math.floor(Date.now() / 1000));
    if (state === 'mismatch') {
      this.log.error(
        { expectedKeyring: this.expected ?? 'unknown', tokenizerKeyring: info.keyring_id },
        'the tokenizer\'s keyring cannot open this database\'s sentinel: not serving until the expected keyring is given',
      );
    }
    this.state = state;
    return state;
  }

  /** Whether the tenant's data is still being upgraded (its calls wait); looks again now and then meanwhile. */
  isMigrating(tenantId: number): boolean {
    if (!this.migrating.size) return false;
    if (Date.now() - this.lookedAt > MIGRATING_RECHECK_MS) void this.lookAgain().catch(() => undefined);
    return this.migrating.has(tenantId);
  }

  /** Whether any tenant is being upgraded (cross-tenant operations wait for all). */
  get anyMigrating(): boolean {
    return this.migrating.size > 0;
  }

  /** A tenant the upgrade finished (told by this process's migrator): served at once. */
  migrated(tenantId: number): void {
    this.migrating.delete(tenantId);
    if (!this.migrating.size && this.state === 'migrating') this.state = 'ok';
  }

  /** Asks the database which tenants are still pending (another replica may be the one upgrading). */
  private lookAgain(): Promise<void> {
    return (this.looking ??= (async () => {
      try {
        for (const id of [...this.migrating]) if (!(await this.db.stores(id).legacy.pending())) this.migrated(id);
        this.lookedAt = Date.now();
      } finally {
        this.looking = undefined;
      }
    })());
  }

  /** True unless some tenant's legacy data fails to open under this keyring (a value of each tenant is tried). */
  private async opensLegacyData(): Promise<boolean> {
    for (const { id } of await this.db.global().tenants.all()) {
      const sample = await this.db.stores(id).legacy.sample();
      if (!sample) continue;
      await this.tokenizer.prepare(id);
      try {
        // Opened and resealed under a throwaway key, inside the tokenizer: nothing is stored, no plaintext leaves it.
        await this.tokenizer.resealLegacy(id, [sample.token], [{ from: { table: 'users', rowId: sample.token }, ciphertext: sample.profile, table: 'keyring_check', rowId: sample.token, key: { subject: sample.token, wrapped: null } }]);
      } catch (err) {
        if (err instanceof TokenizerRejectedError) return false;
        throw err;
      }
    }
    return true;
  }
}
