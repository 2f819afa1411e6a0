// Output schema pieces shared by many operations: what they answer inside the envelope, for the API reference
// (api/http/openapi.ts) and its contract test. Documentation only: answers are not checked against them at run time.
import { z } from 'zod';

const d = (description: string) => ({ description });

/** Nothing beyond `status`. */
export const Done = z.object({});

export const UnixTime = z.number().int().meta(d('A Unix time in seconds.'));
/** A Unix time, or 0 for none. */
export const Expiry = z.number().int().meta(d('A Unix time in seconds; 0 when none is set.'));
export const RecordToken = z.string().meta(d('The person’s record token: how every later call can name them (`mode: "token"`).'));
/** Present, and true, only when a lifetime asked for was longer than allowed and was cut to the expiry answered. */
export const Capped = z.literal(true).optional().meta(d('Present only when the lifetime asked for was longer than allowed: it was cut to the expiry answered.'));
export const UuidOut = z.string().meta(d('A UUID the vault generated.'));
export const AnyObject = z.record(z.string(), z.unknown());
export const ProfileOut = AnyObject.meta(d('The profile as stored (masked where the caller’s policy hides fields).'));

/** Lists: `total` counts every match, `rows` the page. */
export function page<T extends z.ZodType>(row: T) {
  return z.object({ total: z.number().int().meta(d('Every match, whatever the page.')), rows: z.array(row) });
}

export const GroupRole = z.object({ groupid: z.number().int(), groupname: z.string(), grouptype: z.string().nullable(), roleid: z.number().int().nullable(), rolename: z.string().nullable() });

/** A person as UserGet and the lists answer them. */
export const UserOut = z.object({
  token: RecordToken,
  profile: ProfileOut,
  version: z.number().int().meta(d('The profile’s current version (UserListVersions).')),
  finaltime: Expiry,
  slidingtime: z.number().int().meta(d('Seconds of inactivity after which the record expires; 0 when none.')),
  expirationtime: Expiry,
  grouproles: z.array(GroupRole).meta(d('The groups the person belongs to, with their role in each.')),
});

export const Version = z.object({ version: z.number().int(), optime: UnixTime, md5: z.string().meta(d('MD5 of the version’s JSON, to compare versions without reading them.')) });
export const Versions = z.object({ versions: z.array(Version) });

export const RequestAnswer = z.object({
  requestuuid: UuidOut.meta(d('The request, for UserRequestGet, UserRequestApprove and UserRequestCancel.')),
  result: z.literal('request-exists').optional().meta(d('The same request was already open: its uuid is answered.')),
});

export const RequestOut = z.object({
  requestuuid: UuidOut,
  requesttype: z.enum(['change-profile', 'forget-me', 'change-app-data', 'agreement-withdraw']),
  status: z.enum(['open', 'approved', 'canceled']),
  token: RecordToken,
  appname: z.string().optional(),
  brief: z.string().optional(),
  reason: z.string().optional(),
  creationtime: UnixTime,
  when: UnixTime.meta(d('When it last changed.')),
});

export const AgreementOut = z.object({
  brief: z.string(),
  token: RecordToken,
  status: z.string().meta(d('`active`, `pending`, `withdrawn`, `revoked` or `expired`.')),
  agreementmethod: z.string().nullable(),
  referencecode: z.string().nullable(),
  lastmodifiedby: z.string().nullable(),
  mode: z.string().nullable(),
  who: z.string().nullable().meta(d('The identity the agreement was given under.')),
  starttime: UnixTime,
  endtime: Expiry.nullable(),
  finaltime: Expiry.nullable(),
  creationtime: UnixTime,
  when: UnixTime,
});

export const LegalBasisOut = z.object({
  brief: z.string(),
  status: z.enum(['active', 'inactive', 'deleted']),
  module: z.string().nullable(),
  shortdesc: z.string().nullable(),
  fulldesc: z.string().nullable(),
  basistype: z.string().nullable(),
  requiredmsg: z.string().nullable(),
  requiredflag: z.boolean(),
  usercontrol: z.boolean().meta(d('Whether the person may withdraw it themselves.')),
  creationtime: UnixTime,
});

/** Who caused an event: credential kind, role, xtoken id... (another change fills it in; its shape is open here). */
const Who = z.looseObject({}).optional().meta(d('Who made the call: the credential’s kind, role and xtoken id, never a secret.'));

export const AuditEvent = z.object({
  auditeventuuid: UuidOut.meta(d('The event, for AuditGetEvent.')),
  eventtype: z.string().meta(d('The operation called.')),
  title: z.string(),
  timestamp: z.string().meta(d('ISO 8601.')),
  when: UnixTime,
  status: z.enum(['ok', 'error']).meta(d('The call’s own outcome.')),
  msg: z.string().nullable().meta(d('Why it failed, when it did.')),
  mode: z.string().nullable(),
  record: z.string().nullable().meta(d('The person’s record token, when the call was about one.')),
  app: z.string().nullable(),
  more: z.boolean().meta(d('Whether AuditGetEvent has sealed details for it.')),
  who: Who,
});

export const FileInfo = z.object({
  fileuuid: UuidOut,
  filename: z.string(),
  mimetype: z.string(),
  size: z.number().int().meta(d('Bytes.')),
  doublehash: z.string().optional().meta(d('A keyed hash of the content: equal for equal files of the person.')),
  creationtime: UnixTime,
  tags: z.array(z.string()),
});

export const TokenPair = z.object({
  tokenuuid: UuidOut.meta(d('The token’s id.')),
  tokenbase: z.string().meta(d('The token in the record’s own format (a Luhn-valid card number for a card…).')),
});

export const XToken = z.object({
  xtokenid: UuidOut.meta(d('The xtoken’s id, for XTokenRevoke: never the secret.')),
  kind: z.enum(['role', 'login']),
  expires: UnixTime,
  created: UnixTime,
});

export const NewXToken = z.object({
  xtoken: z.string().meta(d('The secret to send as X-Bunker-Token: shown once.')),
  xtokenid: UuidOut.meta(d('Its id, for the lists and XTokenRevoke.')),
  expires: UnixTime,
  capped: z.boolean().optional().meta(d('The lifetime asked for was longer than allowed, and was cut to `expires`.')),
});

/** A person's records across tenants (the System operations). */
export const TenantRecord = z.object({ token: RecordToken, profile: ProfileOut.optional(), tenantid: z.number().int(), tenantname: z.string() });

export const GroupOut = z.object({ groupid: z.number().int(), groupname: z.string(), groupdesc: z.string().nullable(), grouptype: z.string().nullable() });
