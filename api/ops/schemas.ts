// Input schema pieces shared by many operations, with the contract's own error messages.
import { z } from 'zod';
import { MODES, unindexable, unindexableMessage } from '../vault/identities.js';
import { Messages } from '../errors.js';

export const Mode = z
  .enum(MODES, { error: (iss) => (iss.input === undefined ? undefined : Messages.badMode) })
  .meta({ description: 'How `identity` names the person: their record `token`, or a profile index (`login`, `email`, `phone`, `custom`).' });

export const Identity = z
  .union([z.string().min(1), z.number().transform(String)], {
    error: (iss) => (iss.input === undefined ? undefined : 'Invalid API request parameter: identity must be a string'),
  })
  .meta({ description: 'The record token, or the value of the index `mode` names.' });

/** `mode` + `identity`, the way every per-user operation names its user. */
export const UserRef = { mode: Mode, identity: Identity };

/** A record id (role, policy, group, tenant): a positive 32-bit integer, as the database stores it. */
export const RecordId = z.number().int().min(1).max(2_147_483_647, { error: 'must be at most 2147483647' });

/** A time value in any accepted form; parsed later against the request's clock. */
export const TimeInput = z
  .union([z.string().min(1), z.number().int().nonnegative()])
  .meta({ description: 'A duration (`30s`, `12h`, `7d`, `1m` = 31 days, `1y`), a Unix time, or an ISO-8601 date.' });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A JSON object whose index fields (login, email, phone, custom) are strings or numbers when present. Checked by
 * shape only: walking 120 fields of 10,000 bulk profiles would cost more than storing them.
 */
export const Profile = z
  .custom<Record<string, unknown>>((v) => isObject(v) && unindexable(v) === undefined, {
    error: (iss) => {
      if (iss.input === undefined) return undefined;
      const bad = isObject(iss.input) ? unindexable(iss.input) : undefined;
      return bad ? unindexableMessage(bad) : 'expected a JSON object';
    },
  })
  // The check above is not expressible in JSON Schema: say what it is, so the reference shows an object.
  .meta({ type: 'object', description: 'A JSON object; its `login`, `email`, `phone` and `custom` fields are indexed: each a string, a number or null.' });

export const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
  error: Messages.badUuid,
});

/** The pagination rules: offset from 0, limit 10 by default, values outside 1..cap served as the cap. */
export const Offset = z.coerce.number().int().min(0).max(2_147_483_647).default(0).meta({ description: 'Where the page starts, from 0.' });
export const Limit = z.coerce.number().int().optional().meta({ description: 'Rows per page: 10 when absent, 100 when below 1 or above 100.' });

export function pageOf(input: { offset: number; limit?: number | undefined }, cap: number) {
  const limit = input.limit === undefined ? 10 : input.limit < 1 || input.limit > cap ? cap : input.limit;
  return { offset: input.offset, limit };
}
