// The person an operation is about: found by mode and identity, and named in the operation's audit event.
import type { OpContext } from './define.js';
import type { UserRow } from '../store/users.js';
import type { Mode } from '../vault/identities.js';

/** The live user row, or 404; `forUpdate` locks it until the operation's transaction ends. */
export async function subjectRow(ctx: OpContext, ref: { mode: Mode; identity: string }, forUpdate = false): Promise<UserRow> {
  ctx.audit.mode = ref.mode;
  ctx.audit.identity = ref.identity;
  const row = await ctx.services.users.findRow(ctx, ref.mode, ref.identity, forUpdate);
  ctx.audit.record = row.token;
  return row;
}
