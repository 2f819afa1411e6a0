// The one door to a person: found (vault/users.ts only finds), judged through the operation's gate, and named in
// the operation's audit event. `grep gate.person api/` lists every place a person is judged.
import type { OpContext } from './define.js';
import type { UserRow } from '../store/users.js';
import type { FoundUser } from '../vault/users.js';
import type { Mode } from '../vault/identities.js';
import { notFound, Messages } from '../errors.js';

/**
 * The live user row, judged for the caller, or 404. The gate judges the person found, or that nobody was, before
 * anything is answered, so a refused caller learns nothing (not even whether they exist). `forUpdate` locks the
 * row until the operation's transaction ends.
 */
export async function judgedRow(ctx: OpContext, ref: { mode: Mode; identity: string }, forUpdate = false): Promise<UserRow> {
  const row = await ctx.services.users.lookupRow(ctx, ref.mode, ref.identity, forUpdate);
  await ctx.gate.person(row);
  if (!row) throw notFound(Messages.userNotFound);
  return row;
}

/** As `judgedRow`, with the person's profile opened. */
export async function judgedUser(ctx: OpContext, ref: { mode: Mode; identity: string }, forUpdate = false): Promise<FoundUser> {
  const row = await judgedRow(ctx, ref, forUpdate);
  return { row, profile: await ctx.services.users.open(ctx.tenantId, row) };
}

/** The person the operation is about: judged, and named in its event (how, and whose record). */
export async function subjectRow(ctx: OpContext, ref: { mode: Mode; identity: string }, forUpdate = false): Promise<UserRow> {
  ctx.audit.mode = ref.mode;
  ctx.audit.identity = ref.identity;
  const row = await judgedRow(ctx, ref, forUpdate);
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
  const user = await judgedUser(ctx, ref, true);
  ctx.audit.record = user.row.token;
  const next = await change(user.profile);
  ctx.audit.before = user.profile;
  ctx.audit.after = next;
  ctx.event.final(ctx);
  await users.replace(ctx, user, next);
}
