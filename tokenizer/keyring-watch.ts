// Several tokenizers may share one keyring.json (replicas on one volume): another one's rotation, retirement or
// resplit is read here. Changes are made under the file lock by Keyring itself; this only notices them, on a
// timer, when asked (KeyringInfo), and when a call names a version this process lacks.
import type { Logger } from 'pino';
import type { Keyring, ReloadReason } from './keyring.js';
import { fileStamp } from './keyring-file.js';
import { keyringActiveVersion, keyringReloads } from './metrics.js';

export class KeyringWatch {
  /** The file's state when a reload last failed: logged once per state, not at every check. */
  private failedStamp: string | undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly keyring: Keyring,
    private readonly log: Logger,
    /** Seconds between checks of keyring.json for another tokenizer's change; 0 or absent: none. */
    checkSeconds: number | undefined,
  ) {
    keyringActiveVersion.set(keyring.active);
    this.timer = checkSeconds ? setInterval(() => this.reload('periodic'), checkSeconds * 1000) : undefined;
    this.timer?.unref();
  }

  reload(reason: ReloadReason): void {
    const { keyring, log } = this;
    try {
      const r = keyring.reload();
      if (!r.reloaded) return;
      keyringReloads.inc({ reason, result: 'ok' });
      keyringActiveVersion.set(keyring.active);
      this.failedStamp = undefined;
      log.info({ reason, active: keyring.active, versions: keyring.versions, added: r.added, retired: r.removed, keyring: keyring.id }, 'keyring reloaded: another tokenizer changed it');
    } catch (err) {
      keyringReloads.inc({ reason, result: 'failed' });
      // Once per state of the file, not every check: it stays failing until someone acts.
      const stamp = fileStamp(keyring.file);
      if (stamp === this.failedStamp) return;
      this.failedStamp = stamp;
      log.error({ reason, err: { type: (err as Error).name } }, `keyring.json changed but cannot be reloaded, serving the keys in memory: ${(err as Error).message}`);
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
