// POST /v2/SharedRecordListUserRecords (beyond the contract): a person's live shared records, what each shows and
// to whom, until when; so they can be reviewed and revoked (SharedRecordDelete).
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { UnixTime, Expiry, UuidOut, page } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const SharedRecordListUserRecords = defineOp({
  name: 'SharedRecordListUserRecords',
  summary: "A person's live shared records: what each shows, to whom, until when",
  output: page(z.object({ recorduuid: UuidOut, fields: z.array(z.string()).nullable(), appname: z.string().nullable(), partner: z.string().nullable(), creationtime: UnixTime, expirationtime: Expiry })),
  example: { ...ADA },
  ...personOp('read', ['profile', 'appdata'], 'own'),
  input: z.object({ ...UserRef }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const rows = await ctx.stores.shared.ofUser(row.token, ctx.now);
    return {
      total: rows.length,
      rows: rows.map((r) => ({ recorduuid: r.recorduuid, fields: r.fields, appname: r.appname, partner: r.partner, creationtime: r.created, expirationtime: r.expires })),
    };
  },
});
