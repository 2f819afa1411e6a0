// POST /v2/FileDelete: removes a user's file: its metadata now, its stored object as soon as that commits.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RecordToken } from '../outputs.js';
import { ADA, GENERATED } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { FileUuid } from './schemas.js';

export const FileDelete = defineOp({
  name: 'FileDelete',
  summary: "Removes a user's file: its metadata now, its stored object as soon as that commits",
  output: z.object({ token: RecordToken }),
  example: { ...ADA, fileuuid: GENERATED.uuid },
  ...personOp('write', ['file']),
  input: z.object({ ...UserRef, fileuuid: FileUuid }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    ctx.audit.before = { fileuuid: input.fileuuid.toLowerCase() };
    await ctx.services.files.remove(ctx, row.token, input.fileuuid);
    return { token: row.token };
  },
});
