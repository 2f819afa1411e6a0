// Input pieces shared by the role, policy and xtoken operations.
import { z } from 'zod';
import { RecordId } from '../schemas.js';
import type { OpContext } from '../define.js';
import { badRequest, Messages } from '../../errors.js';

export const Name = z.string().min(1).max(128);
export const Description = z.string().max(1024);
export const Id = RecordId;
/**
 * Beyond the contract: who manages a role or policy (the operator puts its resource's uid here), so a tool changes
 * only what it made. Printable ASCII without spaces; an empty one is no mark (on update: removes it).
 */
export const ManagedBy = z.string().max(256).regex(/^[\x21-\x7e]*$/, 'printable ASCII without spaces');
/** A policy document; its shape is checked by the policy engine's parser, which names what is wrong. */
export const PolicyDocument = z
  .custom<object>((v) => typeof v === 'object' && v !== null, { error: (iss) => (iss.input === undefined ? undefined : 'expected a policy object') })
  .meta({ type: ['object', 'array'], description: 'One statement (`Effect`, `Action`, `Resource`, optional `Condition`), a list of them, or `{ Statement: [...] }` (CONTRACT §4.9).' });

/** `roleid` or `rolename` (the SDKs send the name in place of the id when given one). */
export const RoleRef = { roleid: Id.optional(), rolename: Name.optional() };
export const PolicyRef = { policyid: Id.optional(), policyname: Name.optional() };

/** The role an operation names by `roleid` or `rolename`: 400 when it names none, 404 when it is unknown. */
export async function namedRole(ctx: OpContext, input: { roleid?: number | undefined; rolename?: string | undefined }) {
  if (input.roleid === undefined && input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
  return ctx.services.roles.role(ctx.stores, { id: input.roleid, name: input.rolename });
}

/** The role and the policy a link operation names, each by id or name: 400 when one is not named, 404 when unknown. */
export async function roleAndPolicy(
  ctx: OpContext,
  input: { roleid?: number | undefined; rolename?: string | undefined; policyid?: number | undefined; policyname?: string | undefined },
) {
  const roles = ctx.services.roles;
  if (input.roleid === undefined && input.rolename === undefined) throw badRequest(`${Messages.missing}roleid`);
  if (input.policyid === undefined && input.policyname === undefined) throw badRequest(`${Messages.missing}policyid`);
  const role = await roles.role(ctx.stores, { id: input.roleid, name: input.rolename });
  const policy = await roles.policy(ctx.stores, { id: input.policyid, name: input.policyname });
  return { role, policy };
}

/** The names a policy's Actions are checked against: every operation this vault serves (loaded late: index imports us). */
export async function policyVocabulary(): Promise<{ actions: string[] }> {
  const { operations } = await import('../index.js');
  return { actions: operations.map((o) => o.name) };
}

/** What RoleLinkPolicy and RoleUnlinkPolicy take and answer: a role and a policy, each by id or name. */
export const RolePolicyLink = {
  input: z.object({ ...RoleRef, ...PolicyRef }),
  output: z.object({ roleid: z.number().int() }),
  example: { rolename: 'support', policyname: 'support-read' },
};
