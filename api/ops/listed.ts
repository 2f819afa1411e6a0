// The people a list operation may answer: everyone it found, unless the caller's role judges each person (its
// policies ask about the person); then only those the policy allows, each masked as the policy says for them.
import type { OpContext } from './define.js';
import type { UserRow } from '../store/users.js';
import { maskProfile } from '../vault/policy.js';

export interface Listed {
  row: UserRow;
  profile: Record<string, unknown>;
}

export async function visiblePeople(ctx: OpContext, rows: UserRow[], profiles: Record<string, unknown>[]): Promise<Listed[]> {
  const people = rows.map((row, i) => ({ row, profile: profiles[i]! }));
  if (!ctx.gate.judgesEach) return people;
  const grants = await ctx.gate.list(people);
  return people.flatMap((p, i) => {
    const grant = grants[i];
    return grant === null || grant === undefined ? [] : [{ row: p.row, profile: maskProfile(p.profile, grant) }];
  });
}
