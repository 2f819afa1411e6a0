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

/**
 * A change of the person's profile: found, locked and named in the event; `change` makes the new profile from the
 * current one (or throws, changing nothing); the event notes both, and its details are sealed in the same
 * tokenizer round trip as the new profile, which then replaces the old.
 */
export async function changeProfile(
  ctx: OpContext,
  ref: { mode: Mode; identity: string },
  change: (profile: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>,
): Promise<void> {
  const users = ctx.services.users;
  ctx.audit.mode = ref.mode;
  ctx.audit.identity = ref.identity;
  const user = await users.find(ctx, ref.mode, ref.identity, true);
  ctx.audit.record = user.row.token;
  const next = await change(user.profile);
  ctx.audit.before = user.profile;
  ctx.audit.after = next;
  ctx.auditFinal?.();
  await users.replace(ctx, user, next);
}
