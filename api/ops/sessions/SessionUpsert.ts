// POST /v2/SessionUpsert: creates or replaces a session; data naming a person (token, login, email, phone or
// custom, or an explicit mode and identity) links it to them, and an unknown person is a 404.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Capped, Expiry, UuidOut } from '../outputs.js';
import { Mode, Identity, Profile, TimeInput, Uuid } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { SESSION_LINK_FIELDS } from '../../vault/sessions.js';
import { cappedField, expiryFrom } from '../../vault/durations.js';
import type { Mode as ModeName } from '../../vault/identities.js';

export const SessionUpsert = defineOp({
  name: 'SessionUpsert',
  summary: 'Creates or replaces a session, linked to the person its data names',
  output: z.object({ sessionuuid: UuidOut, expirationtime: Expiry, capped: Capped }),
  example: { sessionuuid: 'd3b07384-d9a0-4c9b-8f3e-1a2b3c4d5e6f', sessiondata: { email: 'ada@example.com', device: 'laptop' }, slidingtime: '1h' },
  ...tenantOp('write', ['session']),
  input: z.object({
    sessionuuid: Uuid,
    sessiondata: Profile,
    mode: Mode.optional(),
    identity: Identity.optional(),
    slidingtime: TimeInput.optional(),
    finaltime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    const times = expiryFrom(input, ctx.now);
    const ref = linkOf(input);
    const userToken = ref ? (await subjectRow(ctx, ref)).token : null;
    const uuid = input.sessionuuid.toLowerCase();
    const { expires, capped } = await ctx.services.sessions.upsert(ctx, uuid, userToken, input.sessiondata, times);
    ctx.audit.after = { sessionuuid: uuid, expires };
    return { sessionuuid: uuid, expirationtime: expires, ...cappedField(capped) };
  },
});

function linkOf(input: { mode?: ModeName | undefined; identity?: string | undefined; sessiondata: Record<string, unknown> }) {
  if (input.mode !== undefined && input.identity !== undefined) return { mode: input.mode, identity: input.identity };
  for (const field of SESSION_LINK_FIELDS) {
    const v = input.sessiondata[field];
    if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') return { mode: field, identity: String(v) };
  }
  return undefined;
}
