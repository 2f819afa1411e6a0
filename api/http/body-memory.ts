// Memory for request bodies: every body is counted against one byte budget for the whole process before a byte of
// it is read (its declared length, or, chunked or compressed, the most the caller may send), and given back when
// its request ends. One caller (a credential, or an anonymous client's address) may hold at most a quarter of the
// budget and one tenant at most a half (anonymous callers count as one tenant), so one credential cannot take it
// all: with one other caller at its share, a caller within its own is still served. Beyond, the call is asked to
// come back (503 with Retry-After).
import type { Context } from 'koa';
import { UnavailableError, Messages } from '../errors.js';
import { leaveBodyUnread } from './body.js';

/** Who a body is counted against: its caller and its tenant. */
export interface BodyHolder {
  caller: string;
  tenant: string;
}

export class BodyMemory {
  private used = 0;
  private readonly byCaller = new Map<string, number>();
  private readonly byTenant = new Map<string, number>();
  readonly callerShare: number;
  readonly tenantShare: number;

  /** `budget`: the bytes of bodies the process may hold at once. */
  constructor(readonly budget: number) {
    this.callerShare = Math.floor(budget / 4);
    this.tenantShare = Math.floor(budget / 2);
  }

  /** Bytes held now, all callers together. */
  get held(): number {
    return this.used;
  }

  /**
   * Reserves `bytes` for `holder`: the release (to call once, when the request ends), or null when the budget, the
   * caller's share or the tenant's would be exceeded. A caller or tenant holding nothing may take one body larger
   * than its share (a file may be), within the budget.
   */
  tryReserve(holder: BodyHolder, bytes: number): (() => void) | null {
    const mine = this.byCaller.get(holder.caller) ?? 0;
    const tenant = this.byTenant.get(holder.tenant) ?? 0;
    if (this.used + bytes > this.budget) return null;
    if (mine > 0 && mine + bytes > this.callerShare) return null;
    if (tenant > 0 && tenant + bytes > this.tenantShare) return null;
    this.used += bytes;
    this.byCaller.set(holder.caller, mine + bytes);
    this.byTenant.set(holder.tenant, tenant + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      giveBack(this.byCaller, holder.caller, bytes);
      giveBack(this.byTenant, holder.tenant, bytes);
    };
  }

  /** As tryReserve, answering 503 (the body left unread) when refused. */
  reserve(ctx: Context, holder: BodyHolder, bytes: number): () => void {
    const release = this.tryReserve(holder, bytes);
    if (release) return release;
    leaveBodyUnread(ctx);
    throw new UnavailableError(Messages.busy);
  }
}

function giveBack(counts: Map<string, number>, key: string, bytes: number): void {
  const left = (counts.get(key) ?? bytes) - bytes;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/**
 * The bytes a body of this request may take in memory: its declared length when it is sent as is, else (chunked,
 * or compressed, whose decoded size the length does not tell) the most the caller may send, `limit`. None for no
 * body, nor for a declared length over the limit (refused unread).
 */
export function bodyBytes(ctx: Context, limit: number): number {
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  const declared = ctx.get('content-length');
  if (!declared && !ctx.get('transfer-encoding')) return 0;
  if (/^\d+$/.test(declared) && Number(declared) > limit) return 0;
  if (encoding === 'identity' && /^\d+$/.test(declared)) return Number(declared);
  return limit;
}
