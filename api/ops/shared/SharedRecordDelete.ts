// POST /v2/SharedRecordDelete (beyond the contract): revokes one of a person's shared records before it expires;
// its link stops working at once. The person names it by their identity and its uuid, so a login xtoken can
// revoke its own links and nobody else's.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA, GENERATED } from '../examples.js';
import { UserRef, Uuid } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { notFound, Messages } from '../../errors.js';

export const SharedRecordDelete = defineOp({
  name: 'SharedRecordDelete',
  summary: "Revokes one of a person's shared records before it expires; its link stops working at once",
  output: Done,
  example: { ...ADA, recorduuid: GENERATED.uuid },
  ...personOp('write', ['profile', 'appdata'], 'own'),
  input: z.object({ ...UserRef, recorduuid: Uuid }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const uuid = input.recorduuid.toLowerCase();
    if (!(await ctx.stores.shared.remove(uuid, row.token))) throw notFound(Messages.sharedRecordNotFound);
    ctx.audit.before = { recorduuid: uuid };
    return {};
  },
});
