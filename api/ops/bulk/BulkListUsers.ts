// POST /v2/BulkListUsers: the users matching a list of (mode, identity) pairs, in request order, not paginated.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { page, UserOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Identity } from '../schemas.js';
import { forbidden, Messages } from '../../errors.js';
import { presentUser } from '../../vault/users.js';
import { INDEX_COLUMN } from '../../store/users.js';
import { visiblePeople } from '../listed.js';

export const BulkListUsers = defineOp({
  name: 'BulkListUsers',
  summary: 'The users matching a list of (mode, identity) pairs, in request order, not paginated',
  output: page(UserOut),
  example: { unlockuuid: GENERATED.unlockuuid, users: [{ mode: 'email', identity: 'ada@example.com' }, { mode: 'login', identity: 'alan' }] },
  access: 'tenant',
  kinds: ['profile'],
  masks: true,
  showsProfile: true,
  judges: 'list',
  transaction: 'read',
  input: z.object({
    unlockuuid: z.string(),
    users: z
      .array(z.object({ mode: z.enum(['login', 'email', 'phone', 'custom'], { error: (i) => (i.input === undefined ? undefined : Messages.badMode) }), identity: Identity }))
      .min(1, { error: 'Invalid API request parameter: users: must not be empty' })
      .max(10_000, { error: 'Invalid API request parameter: users: at most 10000 entries' }),
  }),
  async run({ input, ctx }) {
    if (!ctx.services.config.listUsers) throw forbidden(Messages.listUsersDisabled);
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const users = ctx.services.users;
    const hashes = await users.lookupHashes(ctx.tenantId, input.users);
    const wanted: Partial<Record<(typeof input.users)[number]['mode'], Buffer[]>> = {};
    input.users.forEach((u, i) => {
      const h = hashes[i];
      if (h) (wanted[u.mode] ??= []).push(h);
    });
    const found = await ctx.stores.users.byAnyIndex(wanted, ctx.now);
    const byHash = new Map<string, (typeof found)[number]>();
    for (const row of found) {
      for (const u of ['login', 'email', 'phone', 'custom'] as const) {
        const h = row[INDEX_COLUMN[u]];
        if (h) byHash.set(`${u}:${h.toString('base64')}`, row);
      }
    }
    // Request order, each user once, missing identities skipped.
    const ordered: typeof found = [];
    const seen = new Set<string>();
    input.users.forEach((u, i) => {
      const row = hashes[i] && byHash.get(`${u.mode}:${hashes[i]!.toString('base64')}`);
      if (row && !seen.has(row.token)) {
        seen.add(row.token);
        ordered.push(row);
      }
    });
    const shown = await visiblePeople(ctx, ordered, await users.openMany(ctx.tenantId, ordered));
    return { total: shown.length, rows: shown.map((p) => presentUser(p.row, p.profile)) };
  },
});
