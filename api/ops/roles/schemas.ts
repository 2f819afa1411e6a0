// Input pieces shared by the role, policy and xtoken operations.
import { z } from 'zod';
import { RecordId } from '../schemas.js';

export const Name = z.string().min(1).max(128);
export const Description = z.string().max(1024);
export const Id = RecordId;
/** A policy document; its shape is checked by the policy engine's parser, which names what is wrong. */
export const PolicyDocument = z.custom<object>((v) => typeof v === 'object' && v !== null, { error: (iss) => (iss.input === undefined ? undefined : 'expected a policy object') });

/** `roleid` or `rolename` (the SDKs send the name in place of the id when given one). */
export const RoleRef = { roleid: Id.optional(), rolename: Name.optional() };
export const PolicyRef = { policyid: Id.optional(), policyname: Name.optional() };
