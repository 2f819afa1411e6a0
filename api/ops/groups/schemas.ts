// Input pieces shared by the group operations.
import { z } from 'zod';

export const GroupName = z.string().min(1).max(256);
export const GroupDesc = z.string().max(1024);
export const GroupType = z.string().min(1).max(30);
export const GroupId = z.number().int().min(1);
/** `groupid` or `groupname`: the SDKs send the name when given a non-numeric reference. */
export const GroupPick = { groupid: GroupId.optional(), groupname: GroupName.optional() };
