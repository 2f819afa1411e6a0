// Input pieces shared by the group operations.
import { z } from 'zod';
import { RecordId } from '../schemas.js';

export const GroupName = z.string().min(1).max(256);
export const GroupDesc = z.string().max(1024);
export const GroupType = z.string().min(1).max(30);
export const GroupId = RecordId;
/** `groupid` or `groupname`: the SDKs send the name when given a non-numeric reference. */
export const GroupPick = { groupid: GroupId.optional(), groupname: GroupName.optional() };
