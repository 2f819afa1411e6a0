// POST /v2/UserCreateBulk: many profiles in one transaction; duplicates go to `errors`, never fail the batch.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { RecordToken, ProfileOut } from '../outputs.js';
import { Profile, TimeInput } from '../schemas.js';
import { expiryFrom } from '../../vault/durations.js';
import { GroupRef } from '../../vault/groups.js';
import { badRequest } from '../../errors.js';

export const UserCreateBulk = defineOp({
  name: 'UserCreateBulk',
  summary: 'Many profiles in one transaction; duplicates go to `errors`, never fail the batch',
  output: z.object({ created: z.array(z.object({ token: RecordToken, profile: ProfileOut })), errors: z.array(z.object({ profile: ProfileOut, reason: z.string() })).meta({ description: 'Profiles not stored (a duplicate index), with why.' }), summary: z.object({ created: z.number().int(), errors: z.number().int() }) }),
  example: { records: [{ profile: { name: 'Grace Hopper', email: 'grace@example.com' } }, { profile: { name: 'Alan Turing', email: 'alan@example.com', login: 'alan' } }] },
  ...tenantOp('write', ['profile']),
  largeBody: true,
  input: z.object({
    records: z.array(z.object({ profile: Profile, ...GroupRef })).min(1),
    finaltime: TimeInput.optional(),
    slidingtime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    const max = ctx.services.config.bulkMaxRecords;
    if (input.records.length > max) throw badRequest(`Invalid API request parameter: records: at most ${max} per request`);
    const expiry = expiryFrom(input, ctx.now);
    const groups = ctx.services.groups;
    // Every named group and role must exist before any user is stored; records naming the same pair share it.
    const asked = new Map<string, ReturnType<typeof groups.membership>>();
    const membershipOf = (r: (typeof input.records)[number]) => {
      const key = JSON.stringify([r.groupid, r.groupname, r.roleid, r.rolename]);
      if (!asked.has(key)) asked.set(key, groups.membership(ctx, r));
      return asked.get(key)!;
    };
    const memberships = await Promise.all(input.records.map(membershipOf));
    const outcome = await ctx.services.users.createMany(ctx, input.records.map((r) => r.profile), expiry);
    const byProfile = new Map(input.records.map((r, i) => [r.profile, memberships[i]]));
    const joins = new Map<string, { groupId: number; roleId: number | null; tokens: string[] }>();
    for (const c of outcome.created) {
      const m = byProfile.get(c.profile);
      if (!m) continue;
      const key = `${m.groupId}:${m.roleId}`;
      const j = joins.get(key) ?? { ...m, tokens: [] };
      j.tokens.push(c.token);
      joins.set(key, j);
    }
    for (const j of joins.values()) await ctx.stores.groups.addMembers(j.groupId, j.tokens, j.roleId);
    ctx.audit.after = { created: outcome.created.map((c) => c.token), errors: outcome.errors.length };
    ctx.event.publish(...outcome.created.map((c) => ({ type: 'person.created' as const, person: c.token, data: {} })));
    return { created: outcome.created, errors: outcome.errors, summary: { created: outcome.created.length, errors: outcome.errors.length } };
  },
});
