// The one door to a person: found (vault/users.ts only finds), judged through the operation's gate, and named in
// the operation's audit event. `grep gate.person api/` lists every place a person is judged.
import { anyChanged, changedFields } from '../vault/privacy/events.js';
import type { OpContext } from './define.js';
import type { UserRow } from '../store/users.js';
import type { FoundUser } from '../vault/users.js';
import type { Mode } from '../vault/identities.js';
import { forbidden, notFound, Messages } from '../errors.js';
import { indexValues, INDEX_FIELDS } from '../vault/identities.js';

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
  refuseIndexProbe(ctx, user.profile, next);
  ctx.audit.before = user.profile;
  ctx.audit.after = next;
  // The old profile is kept as its version by the replace below: the event names it rather than sealing it again.
  if (users.keepsVersions) ctx.audit.beforeKept = user.row.version;
  ctx.event.final(ctx);
  await users.replace(ctx, user, next);
  // Names of the fields changed, never their values.
  const changed = changedFields(user.profile, next);
  if (anyChanged(changed)) ctx.event.publish({ type: 'person.updated', person: user.row.token, data: changed });
}

/**
 * A caller whose policies ask about the person may not move a person's login, email, phone or custom index: the
 * answer to a taken value (409 naming the index) would tell it someone else has it, whoever that is and whether
 * it may reach them, as UserCreate would (refused to it for the same reason). Other fields it may change.
 */
function refuseIndexProbe(ctx: OpContext, before: Record<string, unknown>, after: Record<string, unknown>): void {
  if (!ctx.gate.asksAboutPeople) return;
  const was = indexValues(before);
  const now = indexValues(after);
  if (INDEX_FIELDS.some((mode) => now[mode] !== undefined && now[mode] !== was[mode])) throw forbidden(Messages.apiDenied);
}
