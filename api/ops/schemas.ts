// Input schema pieces shared by many operations, with the contract's own error messages.
import { z } from 'zod';
import { MODES } from '../vault/identities.js';
import { Messages } from '../errors.js';

export const Mode = z.enum(MODES, {
  error: (iss) => (iss.input === undefined ? undefined : Messages.badMode),
});

export const Identity = z.union([z.string().min(1), z.number().transform(String)], {
  error: (iss) => (iss.input === undefined ? undefined : 'Invalid API request parameter: identity must be a string'),
});

/** `mode` + `identity`, the way every per-user operation names its user. */
export const UserRef = { mode: Mode, identity: Identity };

/** A record id (role, policy, group, tenant): a positive 32-bit integer, as the database stores it. */
export const RecordId = z.number().int().min(1).max(2_147_483_647, { error: 'must be at most 2147483647' });

/** A time value in any accepted form; parsed later against the request's clock. */
export const TimeInput = z.union([z.string().min(1), z.number().int().nonnegative()]);

/** A JSON object. Checked by shape only: walking 120 fields of 10,000 bulk profiles would cost more than storing them. */
export const Profile = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
  error: (iss) => (iss.input === undefined ? undefined : 'expected a JSON object'),
});

export const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
  error: Messages.badUuid,
});

/** The pagination rules: offset from 0, limit 10 by default, values outside 1..cap served as the cap. */
export const Offset = z.coerce.number().int().min(0).max(2_147_483_647).default(0);
export const Limit = z.coerce.number().int().optional();

export function pageOf(input: { offset: number; limit?: number | undefined }, cap: number) {
  const limit = input.limit === undefined ? 10 : input.limit < 1 || input.limit > cap ? cap : input.limit;
  return { offset: input.offset, limit };
}
