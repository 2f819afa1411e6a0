// POST /v2/FileReplaceTags: replaces the whole tag set of a user's file with the normalised new one.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RecordToken, UuidOut } from '../outputs.js';
import { ADA, GENERATED } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { FileUuid, Tags } from './schemas.js';

export const FileReplaceTags = defineOp({
  name: 'FileReplaceTags',
  summary: "Replaces the whole tag set of a user's file with the normalised new one",
  output: z.object({ token: RecordToken, fileuuid: UuidOut, tags: z.array(z.string()) }),
  example: { ...ADA, fileuuid: GENERATED.uuid, tags: ['id', 'verified'] },
  ...personOp('write', ['file']),
  input: z.object({ ...UserRef, fileuuid: FileUuid, tags: Tags }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    await ctx.services.files.replaceTags(ctx, row.token, input.fileuuid, input.tags);
    ctx.audit.after = { fileuuid: input.fileuuid.toLowerCase(), tags: input.tags };
    return { token: row.token, fileuuid: input.fileuuid.toLowerCase(), tags: input.tags };
  },
});
