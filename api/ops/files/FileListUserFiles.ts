// POST /v2/FileListUserFiles: the metadata of a user's files, all of them or those with one tag; no content.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RecordToken, FileInfo } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { Tag } from './schemas.js';

export const FileListUserFiles = defineOp({
  name: 'FileListUserFiles',
  summary: "The metadata of a user's files, all of them or those with one tag; no content",
  output: z.object({ token: RecordToken, total: z.number().int(), files: z.array(FileInfo) }),
  example: { ...ADA, tag: 'id' },
  ...personOp('read', ['file'], 'own'),
  input: z.object({ ...UserRef, tag: Tag.optional() }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const files = ctx.services.files;
    const rows = await ctx.stores.files.ofUser(row.token, input.tag, ctx.now);
    return { token: row.token, total: rows.length, files: await files.present(ctx, rows) };
  },
});
