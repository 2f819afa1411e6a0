// Who made an audit event, in plain words: the `who` the audit operations answer (api/vault/audit/actor.ts), as the
// console says it to staff and as the portal says it to the person the event is about.

export interface Who {
  kind: string;
  xtokenid: string | null;
  roleid: number | null;
  rolename: string | null;
  person: string | null;
  requestid: string | null;
  purpose: string | null;
  address?: string | null;
}

/** A `who` as answered; old events carry only kind and xtokenid, so every other fact may be missing. */
export function whoOf(value: unknown): Who {
  const w = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    kind: str(w.kind) ?? 'unknown',
    xtokenid: str(w.xtokenid),
    roleid: typeof w.roleid === 'number' ? w.roleid : null,
    rolename: str(w.rolename),
    person: str(w.person),
    requestid: str(w.requestid),
    purpose: str(w.purpose),
    ...(w.address !== undefined ? { address: str(w.address) } : {}),
  };
}

/** An xtoken id shortened for a table: its first four characters and an ellipsis (the full id is in the event). */
export function shortId(id: string): string {
  return id.length > 6 ? `${id.slice(0, 4)}…` : id;
}

function roleName(w: Who): string {
  if (w.rolename) return `role ${w.rolename}`;
  return w.roleid !== null ? `role #${w.roleid}` : 'a role';
}

/** Who, for staff: "role support (xtoken 5a4b…)", "the person themselves", "root", "tenant admin". */
export function whoForStaff(value: unknown): string {
  const w = whoOf(value);
  const xtoken = w.xtokenid ? ` (xtoken ${shortId(w.xtokenid)})` : '';
  let said: string;
  switch (w.kind) {
    case 'root':
      said = 'root';
      break;
    case 'tenant-admin':
      said = 'tenant admin';
      break;
    case 'role':
      said = `${roleName(w)}${xtoken}`;
      break;
    case 'login':
      said = 'the person themselves';
      break;
    case 'public':
      said = 'a recipient of a shared link';
      break;
    case 'unauthenticated':
      said = 'an unknown caller (credential refused)';
      break;
    case 'system':
      said = 'the vault itself (a scheduled job)';
      break;
    default:
      said = w.kind;
  }
  if (w.purpose === 'housekeeping') said += ', console housekeeping';
  if (w.purpose === 'housekeeping-refused') said += ', marked housekeeping but it reached a person';
  return said;
}

/** Who, for the person the event is about, in plain words: "you", "the organisation's staff (role support)". */
export function whoForPerson(value: unknown): string {
  const w = whoOf(value);
  switch (w.kind) {
    case 'login':
      return 'you';
    case 'root':
      return "the organisation's main administrator";
    case 'tenant-admin':
      return "an administrator of the organisation";
    case 'role':
      return w.rolename ? `the organisation's staff (role ${w.rolename})` : "the organisation's staff";
    case 'public':
      return 'someone with a link you shared';
    case 'system':
      return 'the vault itself, on a schedule';
    case 'unauthenticated':
      return 'someone who was refused';
    default:
      return 'someone else';
  }
}
