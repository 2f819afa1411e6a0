// The erasure receipts this browser keeps (localStorage): after an approved erasure the person can no longer sign
// in, so what they need to ask about it later is kept when they ask: the tenant (the portal's host, which chooses
// it), their record token and the request's uuid. Neither is personal data, and neither is guessable.

export interface ErasureReceipt {
  /** The host the portal was opened at: it names the tenant, as the vault reads it. */
  tenant: string;
  token: string;
  requestuuid: string;
}

const KEY = 'strongroom.portal.erasure-receipts';

function readAll(): ErasureReceipt[] {
  try {
    const raw: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(raw) ? raw.filter((r): r is ErasureReceipt => typeof r === 'object' && r !== null && typeof r.tenant === 'string' && typeof r.token === 'string' && typeof r.requestuuid === 'string') : [];
  } catch {
    return [];
  }
}

function writeAll(receipts: ErasureReceipt[]): void {
  try {
    if (receipts.length) localStorage.setItem(KEY, JSON.stringify(receipts));
    else localStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode, full): the receipt is simply not kept.
  }
}

/** Keeps the receipt of this person's erasure request here, in place of an earlier one of theirs. */
export function keepReceipt(token: string, requestuuid: string): void {
  const tenant = window.location.host;
  const others = readAll().filter((r) => !(r.tenant === tenant && r.token === token));
  writeAll([...others, { tenant, token, requestuuid }]);
}

/** The receipts kept for this portal's tenant. */
export function receiptsHere(): ErasureReceipt[] {
  return readAll().filter((r) => r.tenant === window.location.host);
}

export function forgetReceipt(receipt: ErasureReceipt): void {
  writeAll(readAll().filter((r) => !(r.tenant === receipt.tenant && r.token === receipt.token && r.requestuuid === receipt.requestuuid)));
}
