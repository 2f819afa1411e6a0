// POST /v2/GroupAddUser: adds a user to a group with an optional role, or changes the role.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { badRequest, Messages } from '../../errors.js';
import { GroupRef } from '../../vault/groups.js';
import { subjectRow } from '../subject.js';

export const GroupAddUser = defineOp({
  name: 'GroupAddUser',
  summary: 'Adds a user to a group with an optional role, or changes the role',
  output: Done,
  example: { ...ADA, groupname: 'support' },
  ...personOp('write', ['group']),
  input: z.object({ ...UserRef, ...GroupRef }),
  async run({ input, ctx }) {
    if (input.groupid === undefined && input.groupname === undefined) throw badRequest(`${Messages.missing}groupid`);
    const row = await subjectRow(ctx, input, true);
    const m = (await ctx.services.groups.membership(ctx, input))!;
    await ctx.stores.groups.addMembers(m.groupId, [row.token], m.roleId);
    ctx.audit.after = { groupid: m.groupId, roleid: m.roleId };
    return {};
  },
});
