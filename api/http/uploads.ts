// Large bodies (FileCreate's files, the bulk creations): how many each tenant, and the whole process, may hold in
// memory at once, and how fast they must arrive. A tenant's callers can fill only that tenant's slots, and a
// client that sends slower than the minimum rate is cut off, so slow uploads cannot keep the slots for long.
import type { Context } from 'koa';
import { RequestTimeoutError, UnavailableError, Messages } from '../errors.js';
import { leaveBodyUnread } from './body.js';

export interface UploadSettings {
  /** Large bodies each tenant may have in memory at once. */
  largeBodies: number;
  /** Large bodies the process may hold at once, all tenants together. */
  largeBodiesTotal: number;
  /** Bytes a second a large body must arrive at, measured over each window; 0: no minimum. */
  uploadMinRate: number;
  uploadRateWindowSeconds: number;
}

/** Beyond its slots a caller is asked to come back (503 with Retry-After), rather than the process growing. */
export class LargeBodies {
  private total = 0;
  private readonly byTenant = new Map<number, number>();

  constructor(private readonly settings: UploadSettings) {}

  /** A slot of `tenantId`, to be released when the request is done; 503 when none is free. */
  take(ctx: Context, tenantId: number): () => void {
    const mine = this.byTenant.get(tenantId) ?? 0;
    if (mine >= this.settings.largeBodies || this.total >= this.settings.largeBodiesTotal) {
      leaveBodyUnread(ctx);
      throw new UnavailableError(Messages.busy);
    }
    this.byTenant.set(tenantId, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) this.byTenant.set(tenantId, left);
      else this.byTenant.delete(tenantId);
    };
  }
}

/**
 * Runs `read` (the body's reader), cutting the request with 408 when fewer than the minimum rate's bytes arrived
 * over a window. The bytes are those the connection delivered, counted by the socket: nothing reads them twice.
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
