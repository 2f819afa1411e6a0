// Large bodies (FileCreate's files, the bulk creations): how many each tenant, each credential and the whole process
// may hold in memory at once. A tenant's callers can fill only that tenant's slots, a credential holds one at most,
// and the tenant's last slot is kept for its administrators (root, tenant admins), so a role's uploads cannot stop
// theirs. Every body must arrive at a minimum rate once a first window has passed, so slow senders cannot keep
// slots, memory or connections for long.
import type { Context } from 'koa';
import { RequestTimeoutError, UnavailableError, Messages } from '../errors.js';
import { leaveBodyUnread } from './body.js';

export interface UploadSettings {
  /** Large bodies each tenant may have in memory at once. */
  largeBodies: number;
  /** Large bodies the process may hold at once, all tenants together. */
  largeBodiesTotal: number;
  /** Bytes a second every body must arrive at, measured over each window after the first; 0: no minimum. */
  uploadMinRate: number;
  uploadRateWindowSeconds: number;
}

/** Who asks for a slot: the tenant, the credential, and whether it administers the tenant. */
export interface SlotHolder {
  tenantId: number;
  credential: string;
  admin: boolean;
}

/** Large bodies one credential may hold at once. */
const PER_CREDENTIAL = 1;

/** Beyond its slots a caller is asked to come back (503 with Retry-After), rather than the process growing. */
export class LargeBodies {
  private total = 0;
  private readonly byTenant = new Map<number, number>();
  private readonly byCredential = new Map<string, number>();

  constructor(private readonly settings: UploadSettings) {}

  /** Whether `holder` may take a slot now. */
  free(holder: SlotHolder): boolean {
    const tenant = this.byTenant.get(holder.tenantId) ?? 0;
    // With two slots or more, the last of the tenant's is for its administrators.
    const forOthers = this.settings.largeBodies > 1 ? this.settings.largeBodies - 1 : this.settings.largeBodies;
    return (
      tenant < (holder.admin ? this.settings.largeBodies : forOthers) &&
      (this.byCredential.get(holder.credential) ?? 0) < PER_CREDENTIAL &&
      this.total < this.settings.largeBodiesTotal
    );
  }

  /** A slot for `holder`, to be released when the request is done; 503 when none is free. */
  take(ctx: Context, holder: SlotHolder): () => void {
    if (!this.free(holder)) {
      leaveBodyUnread(ctx);
      throw new UnavailableError(Messages.busy);
    }
    bump(this.byTenant, holder.tenantId, 1);
    bump(this.byCredential, holder.credential, 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      bump(this.byTenant, holder.tenantId, -1);
      bump(this.byCredential, holder.credential, -1);
    };
  }
}

function bump<K>(counts: Map<K, number>, key: K, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/**
 * Runs `read` (the body's reader), cutting the request with 408 when fewer than the minimum rate's bytes arrived
 * over a window: a body not read whole within the first window (the grace) must keep up the rate. The bytes are those the connection delivered, counted by the socket: nothing reads them twice.
 */
export async function atMinimumRate<T>(ctx: Context, settings: UploadSettings, read: () => Promise<T>): Promise<T> {
  if (!settings.uploadMinRate) return read();
  const socket = ctx.req.socket;
  const windowMs = settings.uploadRateWindowSeconds * 1000;
  let seen = socket.bytesRead;
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const now = socket.bytesRead;
      if (now - seen < settings.uploadMinRate * settings.uploadRateWindowSeconds) reject(new RequestTimeoutError(Messages.tooSlow));
      seen = now;
    }, windowMs);
  });
  const reading = read();
  try {
    return await Promise.race([reading, tooSlow]);
  } catch (err) {
    if (err instanceof RequestTimeoutError) {
      // The reader ends with the connection, which closes with the answer.
      reading.catch(() => {});
      leaveBodyUnread(ctx);
    }
    throw err;
  } finally {
    clearInterval(timer);
  }
}
