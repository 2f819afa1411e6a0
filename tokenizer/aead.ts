// Record encryption: AES-256-GCM with a random 96-bit nonce, bound by AAD to (tenant, table, row).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Subkeys } from './subkeys.js';

/** Format byte 0x01: [0x01][key version u32 BE][nonce 12][ciphertext][tag 16]. */
const FORMAT = 0x01;
const HEADER = 1 + 4 + 12;
const TAG = 16;

export class SealError extends Error {
  override name = 'SealError';
}

/** Length-prefixed, so ("a", "bc") and ("ab", "c") never give the same AAD. */
export function aadFor(tenantId: number, table: string, rowId: string): Buffer {
  const t = Buffer.from(table, 'utf8');
  const r = Buffer.from(rowId, 'utf8');
  const out = Buffer.allocUnsafe(4 + 4 + t.length + 4 + r.length);
  out.writeUInt32BE(tenantId, 0);
  out.writeUInt32BE(t.length, 4);
  t.copy(out, 8);
  out.writeUInt32BE(r.length, 8 + t.length);
  r.copy(out, 12 + t.length);
  return out;
}

export function seal(keys: Subkeys, version: number, tenantId: number, table: string, rowId: string, plaintext: Buffer): Buffer {
  const key = keys.derive(version, tenantId, 'record');
  if (!key) throw new SealError(`no master key version ${version}`);
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(aadFor(tenantId, table, rowId));
  const out = Buffer.allocUnsafe(HEADER + plaintext.length + TAG);
  out[0] = FORMAT;
  out.writeUInt32BE(version, 1);
  nonce.copy(out, 5);
  const n = c.update(plaintext).copy(out, HEADER);
  c.final();
  c.getAuthTag().copy(out, HEADER + n);
  return out;
}

export function open(keys: Subkeys, tenantId: number, table: string, rowId: string, sealed: Buffer): Buffer {
  if (sealed.length < HEADER + TAG || sealed[0] !== FORMAT) throw new SealError('not a sealed record');
  const version = sealed.readUInt32BE(1);
  const key = keys.derive(version, tenantId, 'record');
  if (!key) throw new SealError(`no master key version ${version}`);
  try {
    const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(5, HEADER));
    d.setAAD(aadFor(tenantId, table, rowId));
    d.setAuthTag(sealed.subarray(sealed.length - TAG));
    return Buffer.concat([d.update(sealed.subarray(HEADER, sealed.length - TAG)), d.final()]);
  } catch {
    throw new SealError('ciphertext does not open');
  }
}
