// Public login calls on the person's trail: a login (a new credential) and a lockout are events of the person they
// concern. Failed guesses are not: they are counted (strongroom_login_failures_total), so a flood of them cannot
// grow anyone's trail.
import type { OpContext } from '../define.js';
import { draftEvent } from '../../vault/audit/trail.js';

/** Records `title` on the person's trail, as the public caller; what identified them is the `mode`, never the value. */
export async function onTrail(ctx: OpContext, title: 'UserLogin' | 'UserLockout', person: { token: string; mode: string }): Promise<void> {
  await ctx.services.audit.record(ctx.tenantId, draftEvent(title, ctx.actor, { record: person.token, mode: person.mode }, { status: 'ok' }, { now: ctx.now }));
}
