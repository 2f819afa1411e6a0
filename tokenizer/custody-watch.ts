// The HSM custody while the tokenizer runs. At start the keyring is opened through the HSM, tried again until it
// answers (start and restart need no person: auto-unseal). Then a probe on a timer: a keyring whose HSM has not
// answered for the key-cache TTL is sealed (every key call answers UNAVAILABLE, the api's 503, and health says
// NOT_SERVING) until a probe succeeds again. Static custody never comes here.
import type { Logger } from 'pino';
import type { Pkcs11Settings } from './config.js';
import { CustodyUnavailableError, type Custody } from './custody.js';
import type { Keyring } from './keyring.js';
import { openKeyring, describeCustody } from './keyring-start.js';
import { custodyUp } from './metrics.js';

/** Between two probes: often enough that a TTL is never overrun by much, rarely enough to cost the HSM nothing. */
export function probeEveryMs(ttlMs: number): number {
  return Math.max(250, Math.min(10_000, Math.floor(ttlMs / 4)));
}

export class CustodyWatch {
  private lastUp = Date.now();
  private sealed = false;
  /** The failure last logged: a lasting outage is one log line, not one per probe. */
  private logged: string | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly custody: Custody,
    private readonly log: Logger,
    private readonly ttlMs: number,
    /** Told when key calls stop (false) or start again (true). */
    private readonly onChange: (serving: boolean) => void,
  ) {
    custodyUp.set({ custody: custody.kind }, 1);
    this.timer = setInterval(() => this.probe(), probeEveryMs(ttlMs));
    this.timer.unref();
  }

  /** Before every key call: refuses once the HSM has been away longer than the TTL. */
  admit(): void {
    if (this.sealed || Date.now() - this.lastUp > this.ttlMs) {
      throw new CustodyUnavailableError('the keyring\'s HSM has not answered for longer than the key-cache TTL: key calls wait for it');
    }
  }

  probe(): void {
    try {
      this.custody.probe();
    } catch (err) {
      custodyUp.set({ custody: this.custody.kind }, 0);
      const message = (err as Error).message;
      if (message !== this.logged) {
        this.logged = message;
        this.log.error({ ...this.custody.describe, rv: (err as CustodyUnavailableError).rv }, `key custody unavailable, serving from memory for the key-cache TTL: ${message}`);
      }
      if (!this.sealed && Date.now() - this.lastUp > this.ttlMs) {
        this.sealed = true;
        this.log.error(this.custody.describe, 'key custody away longer than the key-cache TTL: key calls answer UNAVAILABLE until it is back');
        this.onChange(false);
      }
      return;
    }
    this.lastUp = Date.now();
    custodyUp.set({ custody: this.custody.kind }, 1);
    if (this.logged !== undefined) this.log.warn(this.custody.describe, 'key custody answers again');
    this.logged = undefined;
    if (this.sealed) {
      this.sealed = false;
      this.onChange(true);
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** What the unseal loop hands over once the HSM answered and the keyring opened. */
export interface Unsealed {
  custody: Custody;
  keyring: Keyring;
}

/**
 * Opens the HSM custody and the keyring through it, trying again every `retryMs` while the HSM is unreachable (each
 * distinct failure logged once, naming module and slot, never the PIN). A refused PIN is not tried again (tokens
 * lock after a few): it resolves undefined, and the process stays NOT_SERVING until its settings are fixed and it
 * is restarted. Resolves undefined too when `stopped()` says the tokenizer is closing. Any other failure (a keyring the key does not open)
 * rejects: that needs a person, as with a wrong static key.
 */
export async function unsealWithHsm(
  settings: Pkcs11Settings,
  place: { dataDir: string; notice?: ((text: string) => void) | undefined },
  log: Logger,
  opts: { retryMs: number; stopped: () => boolean },
): Promise<Unsealed | undefined> {
  const { Pkcs11Custody, PIN_REFUSED } = await import('./custody-pkcs11.js');
  let logged: string | undefined;
  while (!opts.stopped()) {
    let custody: Custody | undefined;
    try {
      custody = Pkcs11Custody.open(settings);
      const keyring = await openKeyring({ dataDir: place.dataDir, wrappingKey: undefined, hsm: custody }, place.notice);
      custodyUp.set({ custody: 'pkcs11' }, 1);
      log.info({ ...custody.describe, keyring: keyring.id }, `keyring unsealed by the HSM (${describeCustody(custody)})`);
      return { custody, keyring };
    } catch (err) {
      custody?.close();
      if (!(err instanceof CustodyUnavailableError)) throw err;
      custodyUp.set({ custody: 'pkcs11' }, 0);
      const refused = PIN_REFUSED.has(err.rv ?? '');
      if (err.message !== logged) {
        logged = err.message;
        const { module, tokenLabel, slot, keyLabel } = settings;
        const then = refused ? 'not trying again: fix STRONGROOM_PKCS11_PIN (or its file) and restart' : `trying again every ${opts.retryMs} ms`;
        log.error({ module, token: tokenLabel, slot, key: keyLabel, rv: err.rv }, `key custody unavailable at start, NOT_SERVING: ${err.message}; ${then}`);
      }
      if (refused) return undefined;
    }
    await new Promise((r) => setTimeout(r, opts.retryMs).unref());
  }
  return undefined;
}
