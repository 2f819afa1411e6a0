// Input pieces shared by the token operations.
import { z } from 'zod';
import { TOKEN_TYPES, normaliseRecord, type TokenType } from '../../vault/tokens.js';
import { badRequest } from '../../errors.js';
import type { TokenRow } from '../../store/tokens.js';
import type { OpContext } from '../define.js';

export const TokenTypeInput = z.enum(TOKEN_TYPES, {
  error: (iss) =>
    iss.input === undefined ? undefined : `Invalid API request parameter: tokentype: must be one of ${TOKEN_TYPES.join(', ')}`,
});

/** A record is a string; a Unix time may come as a number. */
export const RecordInput = z.union([z.string(), z.number().int().nonnegative().transform(String)], {
  error: (iss) => (iss.input === undefined ? undefined : 'Invalid API request parameter: record: expected a string'),
});

/** A tokenuuid or a tokenbase. */
export const TokenName = z.union([z.string().min(1).max(512), z.number().int().nonnegative().transform(String)], {
  error: (iss) => (iss.input === undefined ? undefined : 'Invalid API request parameter: token: expected a string'),
});

/** The bulk token operations' input: the unlock UUID and up to 10,000 tokenuuids or tokenbases. */
export const BulkTokensInput = z.object({
  unlockuuid: z.string(),
  tokens: z
    .array(TokenName)
    .min(1, { error: 'Invalid API request parameter: tokens: must not be empty' })
    .max(10_000, { error: 'Invalid API request parameter: tokens: at most 10000 entries' }),
});

/** The record normalised for its type, or a 400 naming the field. */
export function checkedRecord(field: string, tokentype: TokenType, record: string): { tokentype: TokenType; record: string; value: string } {
  const n = normaliseRecord(tokentype, record);
  if ('reason' in n) throw badRequest(`Invalid API request parameter: ${field} ${n.reason}`);
  return { tokentype, record, value: n.value };
}

/** The pair a tokenuuid or tokenbase names (404 when none), named in the operation's event; `forUpdate` locks it. */
export async function namedToken(ctx: OpContext, token: string, forUpdate = false): Promise<TokenRow> {
  ctx.audit.identity = token;
  const row = await ctx.services.tokens.find(ctx, token, forUpdate);
  ctx.audit.record = row.tokenuuid;
  return row;
}
