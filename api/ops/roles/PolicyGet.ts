// POST /v2/PolicyGet: one policy by id or name, with its owner mark (`managedby`) when it has one.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { AnyObject } from '../outputs.js';
import { badRequest, Messages } from '../../errors.js';
import { PolicyRef } from './schemas.js';

export const PolicyGet = defineOp({
  name: 'PolicyGet',
  summary: 'One policy by id or name, with its owner mark (`managedby`) when it has one',
  output: z.object({ policyid: z.number().int(), policyname: z.string(), policydesc: z.string().nullable(), policy: AnyObject.meta({ description: 'The policy document.' }), managedby: z.string().optional() }),
  example: { policyname: 'support-read' },
  ...mainTenantOp('read'),
  input: z.object(PolicyRef),
  async run({ input, ctx }) {
    if (input.policyid === undefined && input.policyname === undefined) throw badRequest(`${Messages.missing}policyid`);
    const p = await ctx.services.roles.policy(ctx.stores, { id: input.policyid, name: input.policyname });
    return { policyid: p.policyid, policyname: p.policyname, policydesc: p.policydesc, policy: p.policy, ...(p.managedby !== null && { managedby: p.managedby }) };
  },
});
