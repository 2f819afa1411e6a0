// Group membership set at user creation. Groups arrive with the access-control work; until then none exists.
import { z } from 'zod';
import { notFound } from '../http/errors.js';

export const GroupRef = {
  groupname: z.string().min(1).optional(),
  groupid: z.number().int().optional(),
  rolename: z.string().min(1).optional(),
  roleid: z.number().int().optional(),
};

/** No group can be named yet, so naming one is the contract's 404 for an unknown group. */
export function assertNoGroup(ref: { groupname?: string | undefined; groupid?: number | undefined }): void {
  if (ref.groupname !== undefined || ref.groupid !== undefined) throw notFound('The group record was not found');
}
