// POST /v2/FileCreate: stores a file for a user, sealed; the same content again answers the existing file.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RecordToken, UuidOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { TimeInput, UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { badRequest, PayloadTooLargeError } from '../../errors.js';
import { expiryFrom } from '../../vault/durations.js';
import { base64Capacity, decodeBase64, sniffMimetype } from '../../vault/file-content.js';
import { BAD_BASE64, FileData, FileName, Mimetype, Tags } from './schemas.js';

export const FileCreate = defineOp({
  name: 'FileCreate',
  summary: 'Stores a file for a user, sealed; the same content again answers the existing file',
  output: z.object({ token: RecordToken, fileuuid: UuidOut, duplicate: z.boolean().meta({ description: 'The person already had this content: its file is answered.' }), tags: z.array(z.string()) }),
  example: { ...ADA, filename: 'note.txt', filedata: 'SGVsbG8sIEFkYSE=', mimetype: 'text/plain', tags: ['id'] },
  ...personOp('write', ['file']),
  largeBody: true,
  input: z.object({
    ...UserRef,
    filename: FileName,
    filedata: FileData,
    mimetype: Mimetype.optional(),
    tags: Tags.optional(),
    finaltime: TimeInput.optional(),
    slidingtime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    // The request is judged before the user is looked up or locked: bad input costs no database work.
    const maxBytes = ctx.services.config.files.maxBytes;
    if (base64Capacity(input.filedata.length) > maxBytes + 2) throw tooLarge(maxBytes);
    const content = decodeBase64(input.filedata);
    if (!content) throw badRequest(BAD_BASE64);
    if (content.length > maxBytes) throw tooLarge(maxBytes);
    const expiry = expiryFrom(input, ctx.now);
    const row = await subjectRow(ctx, input, true);
    const file = await ctx.services.files.create(ctx, row.token, {
      filename: input.filename,
      content,
      mimetype: input.mimetype ?? (await sniffMimetype(content)),
      tags: input.tags ?? [],
      expiry,
    });
    ctx.audit.after = { fileuuid: file.fileuuid, duplicate: file.duplicate, size: content.length, tags: file.tags };
    return { token: row.token, fileuuid: file.fileuuid, duplicate: file.duplicate, tags: file.tags };
  },
});

function tooLarge(maxBytes: number) {
  return new PayloadTooLargeError(`The filedata parameter is larger than ${maxBytes} bytes`);
}
