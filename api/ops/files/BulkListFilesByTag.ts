// POST /v2/BulkListFilesByTag: every live file of the tenant with a tag, with its owner's token, paginated.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { RecordToken, page, FileInfo } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Limit, Offset, pageOf } from '../schemas.js';
import { Tag } from './schemas.js';

export const BulkListFilesByTag = defineOp({
  name: 'BulkListFilesByTag',
  summary: "Every live file of the tenant with a tag, with its owner's token, paginated",
  output: page(FileInfo.extend({ token: RecordToken })),
  example: { unlockuuid: GENERATED.unlockuuid, tag: 'id', offset: 0, limit: 10 },
  ...tenantOp('read', ['file']),
  input: z.object({ unlockuuid: z.string(), tag: Tag, offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const files = ctx.services.files;
    const page = await ctx.stores.files.pageByTag(input.tag, offset, limit, ctx.now);
    const infos = await files.present(ctx, page.rows);
    return { total: page.total, rows: page.rows.map((r, i) => ({ token: r.userToken, ...infos[i]! })) };
  },
});
