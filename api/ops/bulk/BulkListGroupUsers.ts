// POST /v2/BulkListGroupUsers: a page of a group's members with their profiles and roles, behind the unlock UUID.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { page, UserOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Offset, Limit, pageOf } from '../schemas.js';
import { badRequest, Messages } from '../../errors.js';
import { presentUser } from '../../vault/users.js';
import { GroupPick } from '../groups/schemas.js';

export const BulkListGroupUsers = defineOp({
  name: 'BulkListGroupUsers',
  summary: "A page of a group's members with their profiles and roles, behind the unlock UUID",
  output: page(UserOut.extend({ roleid: z.number().int().nullable(), rolename: z.string().nullable() })),
  example: { unlockuuid: GENERATED.unlockuuid, groupname: 'support', offset: 0, limit: 10 },
  ...tenantOp('read', ['profile', 'group']),
  masks: true,
  showsProfile: true,
  input: z.object({ unlockuuid: z.string(), ...GroupPick, offset: Offset, limit: Limit }),
  async run({ input, ctx }) {
    if (input.groupid === undefined && input.groupname === undefined) throw badRequest(`${Messages.missing}groupid`);
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    const { groups, users, roles } = ctx.services;
    const g = await groups.find(ctx, input);
    const { offset, limit } = pageOf(input, ctx.services.config.limitCap);
    const page = await ctx.stores.groups.members(g.groupid, ctx.now, offset, limit);
    const rows = await ctx.stores.users.byKeys('token', page.rows.map((r) => r.token), ctx.now);
    const byToken = new Map(rows.map((r) => [r.token, r]));
    const ordered = page.rows.map((r) => byToken.get(r.token)).filter((r) => r !== undefined);
    const profiles = await users.openMany(ctx.tenantId, ordered);
    const roleNames = new Map<number, string>();
    for (const id of new Set(page.rows.map((r) => r.roleid).filter((id): id is number => id !== null))) {
      roleNames.set(id, (await roles.role(ctx.stores, { id })).rolename);
    }
    const roleOf = new Map(page.rows.map((r) => [r.token, r.roleid]));
    return {
      total: page.total,
      rows: ordered.map((row, i) => {
        const roleid = roleOf.get(row.token) ?? null;
        return { ...presentUser(row, profiles[i]!), roleid, rolename: roleid === null ? null : (roleNames.get(roleid) ?? null) };
      }),
    };
  },
});
