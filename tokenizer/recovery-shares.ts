// The recovery key's 3-of-5 Shamir shares: splitting, checking what a holder typed, and why a recovery failed.
import { split } from 'shamir-secret-sharing';
import { KEY_BYTES } from './keyring-file.js';

/** The shares given do not rebuild the recovery key of this keyring, or it has none. */
export class RecoveryError extends Error {
  override name = 'RecoveryError';
}

/** The shares are unusable as shares: too few, repeated, malformed. Nothing was tried against the keyring. */
export class SharesError extends RecoveryError {
  override name = 'SharesError';
}

/** This keyring has no recovery key, so there is nothing to rebuild or re-split. */
export class NoRecoveryKeyError extends RecoveryError {
  override name = 'NoRecoveryKeyError';
}

export const SHARES = 5;
export const THRESHOLD = 3;

/** The five shares (hex) of a recovery key, any three of which rebuild it. */
export async function recoveryShares(recoveryKey: Buffer): Promise<string[]> {
  const shares = await split(new Uint8Array(recoveryKey), SHARES, THRESHOLD);
  return shares.map((sh) => Buffer.from(sh).toString('hex'));
}

/** Three to five distinct shares of equal length, as bytes; SharesError otherwise (naming no share). */
export function parseShares(sharesHex: string[]): Uint8Array[] {
  if (sharesHex.length < THRESHOLD) throw new SharesError(`at least ${THRESHOLD} shares are needed`);
  if (sharesHex.length > SHARES) throw new SharesError(`at most ${SHARES} shares are taken`);
  const out: Uint8Array[] = [];
  for (const [i, h] of sharesHex.entries()) {
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(h)) throw new SharesError(`share ${i + 1} is not hex`);
    out.push(new Uint8Array(Buffer.from(h, 'hex')));
  }
  if (new Set(sharesHex.map((h) => h.toLowerCase())).size !== sharesHex.length) throw new SharesError('a share is given twice');
  // The last byte of a share is its x coordinate: two different shares with one x are two holders' mix-up.
  if (new Set(out.map((b) => b[b.length - 1])).size !== out.length) throw new SharesError('two shares are the same share number');
  if (new Set(out.map((b) => b.length)).size !== 1) throw new SharesError('the shares are of different lengths');
  if (out[0]!.length !== KEY_BYTES + 1) throw new SharesError('the shares are not shares of a 256-bit key');
  return out;
}
