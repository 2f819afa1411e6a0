// POST /v2/SharedRecordCreate: a uuid a partner can read without a token, showing only the chosen fields.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Capped, Expiry, UuidOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef, TimeInput } from '../schemas.js';
import { AppName } from '../appdata/schemas.js';
import { subjectRow } from '../subject.js';
import { cappedField, expiryFrom } from '../../vault/durations.js';
import { mayRead } from '../profile-reads.js';

const Field = /^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$/;

/** A comma-separated list (or an array) of field paths such as `name,address.city`. */
const Fields = z.union([z.string(), z.array(z.string())]).transform((v, ctx) => {
  const list = (Array.isArray(v) ? v : v.split(',')).map((f) => f.trim()).filter(Boolean);
  const bad = list.find((f) => !Field.test(f) || f.length > 256);
  if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `Invalid API request parameter: fields: ${JSON.stringify(bad)} is not a field path` });
  if (list.length > 100) ctx.addIssue({ code: 'custom', message: 'Invalid API request parameter: fields: at most 100' });
  return [...new Set(list)];
});

export const SharedRecordCreate = defineOp({
  name: 'SharedRecordCreate',
  summary: 'A uuid a partner can read without a token, showing only the chosen fields',
  output: z.object({ recorduuid: UuidOut.meta({ description: 'What the recipient sends to SharedRecordGet (or opens as /portal/shared/<uuid>).' }), expirationtime: Expiry, capped: Capped }),
  example: { ...ADA, fields: ['name', 'email'], partner: 'courier', finaltime: '1d' },
  ...personOp('write', ['profile', 'appdata'], 'own'),
  readsProfile: true,
  input: z.object({
    ...UserRef,
    fields: Fields.optional(),
    partner: z.string().max(256).optional(),
    appname: AppName.optional(),
    finaltime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    if (input.appname) ctx.audit.app = input.appname;
    const { finaltime } = expiryFrom({ finaltime: input.finaltime }, ctx.now);
    const fields = input.fields?.length ? input.fields : null;
    // A share of the profile shows its fields to whoever holds the link: only what the caller's UserGet would show.
    if (!input.appname) await mayRead(ctx, fields ? fields.filter((f) => f !== 'token') : ['']);
    const { row: share, capped } = await ctx.services.shared.create(ctx, row.token, { fields, appname: input.appname ?? null, partner: input.partner ?? null, finaltime });
    ctx.audit.after = { recorduuid: share.recorduuid, fields, partner: share.partner, expires: share.expires };
    return { recorduuid: share.recorduuid, expirationtime: share.expires, ...cappedField(capped) };
  },
});
