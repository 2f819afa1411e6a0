// POST /v2/UserRequestGet: one request with its proposed change and, while open, what it would change.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { AnyObject, RequestOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Uuid } from '../schemas.js';
import { presentRequest, type Change } from '../../vault/requests.js';
import { maskProfile, readsWhole } from '../../vault/policy-mask.js';
import type { FieldGrant } from '../../vault/policy.js';
import { UserGet } from '../users/UserGet.js';
import { fieldOfPointer } from '../profile-reads.js';
import { judgedUser } from '../subject.js';

export const UserRequestGet = defineOp({
  name: 'UserRequestGet',
  summary: 'One request with its proposed change and, while open, what it would change',
  output: z.object({ request: RequestOut.extend({ change: AnyObject.nullable().optional().meta({ description: 'The proposed change (`profile`, `patch`, `appdata`…).' }), original: AnyObject.nullable().optional().meta({ description: 'While open: the data it would change.' }) }) }),
  example: { requestuuid: GENERATED.uuid },
  ...personOp('read', ['request', 'profile'], 'own'),
  input: z.object({ requestuuid: Uuid }),
  async run({ input, ctx }) {
    const requests = ctx.services.requests;
    const row = await requests.get(ctx, input.requestuuid);
    ctx.audit.record = row.user_token;
    // A profile read for the caller shows what its UserGet would (a field a Deny hides stays hidden here too).
    const grant = row.requesttype === 'change-profile' ? await ctx.gate.also(UserGet) : '*';
    const change = maskedChange(await requests.change(ctx, row), grant);
    const request: Record<string, unknown> = { ...presentRequest(row), change };
    // The data the change would replace, as it is now: what an approver compares the proposal with.
    if (row.status === 'open' && row.requesttype === 'change-profile') {
      request.original = maskProfile((await judgedUser(ctx, { mode: 'token', identity: row.user_token })).profile, grant);
    } else if (row.status === 'open' && row.requesttype === 'change-app-data') {
      request.original = await ctx.services.appdata.get(ctx, row.user_token, row.appname!).then(
        (a) => a.data,
        () => null,
      );
    }
    return { request };
  },
});

/** A proposed profile change as the caller may see it: merged fields masked, and a patch's values where hidden. */
function maskedChange(change: Change, grant: FieldGrant): Change {
  if (grant === '*' || change === null) return change;
  if ('profile' in change) return { profile: maskProfile(change.profile, grant) };
  if ('patch' in change) {
    return { patch: change.patch.map((op) => (op.value !== undefined && !readsWhole(grant, fieldOfPointer(op.path)) ? { ...op, value: '***' } : op)) };
  }
  return change;
}
