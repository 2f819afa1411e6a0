// Input pieces shared by the legal basis and agreement operations (and the activities that link to bases).
import { z } from 'zod';
import { basisType } from '../../vault/consent.js';

/** A legal basis id: lowercased, `^[a-z0-9-]+$`, at most 64 characters (CONTRACT §4.14). */
export const Brief = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9-]{1,64}$/, { error: 'Invalid API request parameter: brief: letters, digits and - only, at most 64' }));

export const Text = (max: number) => z.string().max(max);

/** `status` of a legal basis: active or inactive (OSS's `disabled` means inactive). */
const BasisStatus = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .transform((s) => (s === 'disabled' ? 'inactive' : s))
  .pipe(z.enum(['active', 'inactive'], { error: 'Invalid API request parameter: status must be active or inactive' }));

const BasisType = z.string().transform((s, ctx) => {
  const t = basisType(s);
  if (!t) ctx.addIssue({ code: 'custom', message: 'Invalid API request parameter: basistype must be consent, contract, legal-requirement, legitimate-interest, public-interest or vital-interest' });
  return t ?? '';
});

/** Booleans as JSON booleans, or the strings and numbers forms post and v1 clients send. */
export const Flag = z.union([
  z.boolean(),
  z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim().toLowerCase())
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']))
    .transform((v) => ['true', '1', 'yes', 'on'].includes(v)),
]);

export const BasisFields = {
  status: BasisStatus.optional(),
  module: Text(128).optional(),
  shortdesc: Text(1024).optional(),
  fulldesc: Text(16 * 1024).optional(),
  basistype: BasisType.optional(),
  requiredmsg: Text(1024).optional(),
  requiredflag: Flag.optional(),
  usercontrol: Flag.optional(),
};
