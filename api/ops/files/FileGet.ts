// POST /v2/FileGet: a user's file by uuid (or the newest with a name), as base64 in JSON or, with `raw`, as bytes.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RecordToken, FileInfo } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { badRequest, Messages } from '../../errors.js';
import { rawAnswer } from '../raw-answer.js';
import { FileName, FileUuid, Raw } from './schemas.js';

export const FileGet = defineOp({
  name: 'FileGet',
  summary: "A user's file by uuid (or the newest with a name), as base64 in JSON or, with `raw`, as bytes",
  output: FileInfo.omit({ doublehash: true }).extend({ token: RecordToken, filedata: z.string().meta({ description: 'The content, base64.' }) }),
  example: { ...ADA, filename: 'note.txt' },
  ...personOp('read', ['file'], 'own'),
  input: z.object({ ...UserRef, fileuuid: FileUuid.optional(), filename: FileName.optional(), raw: Raw.optional() }),
  async run({ input, ctx }) {
    if (input.fileuuid === undefined && input.filename === undefined) throw badRequest(`${Messages.missing}fileuuid or filename`);
    const row = await subjectRow(ctx, input);
    const files = ctx.services.files;
    const file = await files.find(ctx, row.token, input);
    const { filename, content } = await files.read(ctx, file);
    ctx.audit.after = { fileuuid: file.fileuuid, raw: input.raw ?? false };
    if (input.raw) return rawAnswer({ body: content, contentType: file.mimetype, filename });
    return {
      token: row.token,
      fileuuid: file.fileuuid,
      filename,
      mimetype: file.mimetype,
      size: file.size,
      creationtime: file.created,
      tags: file.tags,
      filedata: content.toString('base64'),
    };
  },
});
