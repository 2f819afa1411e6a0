// POST /v2/UserDeleteBulk: erases many users at once (as UserDelete each); unknown ones are skipped.
import { erased } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { UserRef } from '../schemas.js';
import { VaultError } from '../../errors.js';
import { judgedRow } from '../subject.js';

export const UserDeleteBulk = defineOp({
  name: 'UserDeleteBulk',
  summary: 'Erases many users at once (as UserDelete each); unknown ones are skipped',
  output: z.object({ deleted_count: z.number().int() }),
  example: { users: [{ mode: 'email', identity: 'grace@example.com' }] },
  ...tenantOp('write', ['profile']),
  input: z.object({
    users: z
      .array(z.object(UserRef))
      .min(1, { error: 'Invalid API request parameter: users: must not be empty' })
      .max(10_000, { error: 'Invalid API request parameter: users: at most 10000 entries' }),
  }),
  async run({ input, ctx }) {
    const users = ctx.services.users;
    const deleted = new Set<string>();
    for (const u of input.users) {
      let token: string;
      try {
        token = (await judgedRow(ctx, u, true)).token;
      } catch (err) {
        // A missing user is skipped; anything else (a malformed token) fails the whole call.
        if (err instanceof VaultError && err.status === 404) continue;
        throw err;
      }
      if (deleted.has(token)) continue;
      await users.remove(ctx, token);
      deleted.add(token);
    }
    ctx.audit.after = { deleted: [...deleted] };
    ctx.event.publish(...[...deleted].map((token) => erased(token)));
    return { deleted_count: deleted.size };
  },
});
