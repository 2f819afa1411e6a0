// SQL for one tenant schema's legal bases, agreements and processing activities.
import { TenantTables } from './tenant-tables.js';
import { bool, bytes, num, text, textOrNull, texts, type Raw } from './columns.js';

export interface LegalBasisRow {
  brief: string;
  status: string;
  module: string | null;
  shortdesc: string | null;
  fulldesc: string | null;
  basistype: string;
  requiredmsg: string | null;
  requiredflag: boolean;
  usercontrol: boolean;
  creationtime: number;
}

export type LegalBasisFields = Partial<Omit<LegalBasisRow, 'brief' | 'creationtime'>>;

export interface AgreementRow {
  user_token: string;
  brief: string;
  status: string;
  details: Buffer;
  starttime: number;
  endtime: number;
  creationtime: number;
  updated: number;
  /** The legal basis's immutable id: what the details' AAD names (a brief can be renamed). */
  basis_id: string;
}

export interface ActivityRow {
  activity: string;
  title: string | null;
  script: string | null;
  fulldesc: string | null;
  applicableto: string | null;
  creationtime: number;
  legalbasis: string[];
}

export type ActivityFields = Partial<Pick<ActivityRow, 'title' | 'script' | 'fulldesc' | 'applicableto'>>;

const BASIS_COLUMNS = ['status', 'module', 'shortdesc', 'fulldesc', 'basistype', 'requiredmsg', 'requiredflag', 'usercontrol'] as const;
const ACTIVITY_COLUMNS = ['title', 'script', 'fulldesc', 'applicableto'] as const;

function basisOf(r: Raw): LegalBasisRow {
  return {
    brief: text(r, 'brief'),
    status: text(r, 'status'),
    module: textOrNull(r, 'module'),
    shortdesc: textOrNull(r, 'shortdesc'),
    fulldesc: textOrNull(r, 'fulldesc'),
    basistype: text(r, 'basistype'),
    requiredmsg: textOrNull(r, 'requiredmsg'),
    requiredflag: bool(r, 'requiredflag'),
    usercontrol: bool(r, 'usercontrol'),
    creationtime: num(r, 'creationtime'),
  };
}

function agreementOf(r: Raw): AgreementRow {
  return {
    user_token: text(r, 'user_token'),
    brief: text(r, 'brief'),
    status: text(r, 'status'),
    details: bytes(r, 'details'),
    starttime: num(r, 'starttime'),
    endtime: num(r, 'endtime'),
    creationtime: num(r, 'creationtime'),
    updated: num(r, 'updated'),
    basis_id: text(r, 'basis_id'),
  };
}

function activityOf(r: Raw): ActivityRow {
  return {
    activity: text(r, 'activity'),
    title: textOrNull(r, 'title'),
    script: textOrNull(r, 'script'),
    fulldesc: textOrNull(r, 'fulldesc'),
    applicableto: textOrNull(r, 'applicableto'),
    legalbasis: texts(r, 'legalbasis'),
    creationtime: num(r, 'creationtime'),
  };
}

/** `set a = $n, …` for the defined fields, with their values appended to `params`. */
function assignments(fields: Record<string, unknown>, columns: readonly string[], params: unknown[]): string[] {
  const out: string[] = [];
  for (const c of columns) {
    if (fields[c] === undefined) continue;
    params.push(fields[c]);
    out.push(`${c} = $${params.length}`);
  }
  return out;
}

export class ConsentStore extends TenantTables {
  // Legal bases

  private get basisId(): string {
    return `(select b.id from ${this.t}.legal_bases b where b.brief = agreements.brief) as basis_id`;
  }

  /** The basis with its immutable id (agreements' details are bound to it), in one statement; null when none. */
  async basisWithId(brief: string): Promise<{ basis: LegalBasisRow; id: string } | null> {
    const [r] = await this.sql(`select * from ${this.t}.legal_bases where brief = $1`, [brief]);
    return r ? { basis: basisOf(r), id: String(r.id) } : null;
  }

  async basis(brief: string, forUpdate = false): Promise<LegalBasisRow | null> {
    const [r] = await this.sql(`select * from ${this.t}.legal_bases where brief = $1${forUpdate ? ' for update' : ''}`, [brief]);
    return r ? basisOf(r) : null;
  }

  async bases(): Promise<LegalBasisRow[]> {
    return (await this.sql(`select * from ${this.t}.legal_bases where status <> 'deleted' order by brief`)).map(basisOf);
  }

  /** Inserts a basis, or revives a deleted one under the same brief; false when a live one exists. */
  async createBasis(brief: string, fields: Required<LegalBasisFields>, now: number): Promise<boolean> {
    const rows = await this.sql(`insert into ${this.t}.legal_bases (brief, status, module, shortdesc, fulldesc, basistype, requiredmsg, requiredflag, usercontrol, creationtime, updated)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
       on conflict (brief) do update set status = excluded.status, module = excluded.module, shortdesc = excluded.shortdesc,
         fulldesc = excluded.fulldesc, basistype = excluded.basistype, requiredmsg = excluded.requiredmsg,
         requiredflag = excluded.requiredflag, usercontrol = excluded.usercontrol, creationtime = excluded.creationtime, updated = excluded.updated
       where ${this.t}.legal_bases.status = 'deleted'
       returning brief`,
      [brief, fields.status, fields.module, fields.shortdesc, fields.fulldesc, fields.basistype, fields.requiredmsg, fields.requiredflag, fields.usercontrol, now],
    );
    return rows.length > 0;
  }

  async updateBasis(brief: string, fields: LegalBasisFields & { brief?: string | undefined }, now: number): Promise<void> {
    const params: unknown[] = [brief, now];
    const sets = assignments(fields, BASIS_COLUMNS, params);
    if (fields.brief !== undefined && fields.brief !== brief) {
      params.push(fields.brief);
      sets.push(`brief = $${params.length}`);
    }
    await this.sql(`update ${this.t}.legal_bases set ${[...sets, 'updated = $2'].join(', ')} where brief = $1`, params);
  }

  async hasAgreements(brief: string): Promise<boolean> {
    const [r] = await this.sql(`select 1 from ${this.t}.agreements where brief = $1 limit 1`, [brief]);
    return r !== undefined;
  }

  async deleteBasis(brief: string): Promise<void> {
    await this.sql(`delete from ${this.t}.legal_bases where brief = $1`, [brief]);
  }

  // Agreements

  async agreement(token: string, brief: string, forUpdate = false): Promise<AgreementRow | null> {
    const [r] = await this.sql(`select *, ${this.basisId} from ${this.t}.agreements where user_token = $1 and brief = $2${forUpdate ? ' for update' : ''}`, [
      token,
      brief,
    ]);
    return r ? agreementOf(r) : null;
  }

  async agreementsOf(token: string): Promise<AgreementRow[]> {
    return (await this.sql(`select *, ${this.basisId} from ${this.t}.agreements where user_token = $1 order by brief`, [token])).map(agreementOf);
  }

  async upsertAgreement(a: Omit<AgreementRow, 'creationtime' | 'updated' | 'basis_id'>, now: number): Promise<void> {
    await this.sql(`insert into ${this.t}.agreements (user_token, brief, status, details, starttime, endtime, creationtime, updated)
       values ($1, $2, $3, $4, $5, $6, $7, $7)
       on conflict (user_token, brief) do update set status = excluded.status, details = excluded.details,
         starttime = excluded.starttime, endtime = excluded.endtime, updated = excluded.updated`,
      [a.user_token, a.brief, a.status, a.details, a.starttime, a.endtime, now],
    );
  }

  async setAgreementStatus(token: string, brief: string, status: string, endtime: number, now: number): Promise<void> {
    await this.sql(`update ${this.t}.agreements set status = $3, endtime = $4, updated = $5 where user_token = $1 and brief = $2`, [
      token,
      brief,
      status,
      endtime,
      now,
    ]);
  }

  /** Every agreement of a brief that is in force or pending becomes `revoked`; returns how many. */
  /** Revokes every agreement in force or pending to `brief`: answers whose. */
  async revokeAll(brief: string, now: number): Promise<string[]> {
    const rows = await this.sql<{ user_token: string }>(`update ${this.t}.agreements set status = 'revoked', updated = $2 where brief = $1 and status in ('active', 'pending') returning user_token`,
      [brief, now],
    );
    return rows.map((r) => r.user_token);
  }

  /**
   * The sweeper's pass: pending agreements whose start has come begin; those past their end expire. Answers how many
   * changed, and whose agreement to which basis expired.
   */
  async sweep(now: number, batch: number): Promise<{ count: number; expired: { token: string; brief: string }[] }> {
    const started = await this.sql(`update ${this.t}.agreements set status = 'active', updated = $1 where ctid in (
         select ctid from ${this.t}.agreements where status = 'pending' and starttime > updated and starttime <= $1 limit $2) returning 1`,
      [now, batch],
    );
    const ended = await this.sql(`update ${this.t}.agreements set status = 'expired', updated = $1 where ctid in (
         select ctid from ${this.t}.agreements where endtime > 0 and endtime <= $1 and status in ('active', 'pending') limit $2) returning user_token, brief`,
      [now, batch],
    );
    return { count: started.length + ended.length, expired: ended.map((r) => ({ token: r.user_token as string, brief: r.brief as string })) };
  }

  // Processing activities

  async activity(activity: string, forUpdate = false): Promise<ActivityRow | null> {
    const [r] = await this.sql(`select * from ${this.t}.processing_activities where activity = $1${forUpdate ? ' for update' : ''}`, [activity]);
    return r ? activityOf(r) : null;
  }

  async activities(): Promise<ActivityRow[]> {
    const rows = await this.sql(`select a.*, coalesce(array_agg(l.brief order by l.brief) filter (where l.brief is not null), '{}') as legalbasis
       from ${this.t}.processing_activities a left join ${this.t}.activity_legal_bases l using (activity)
       group by a.activity order by a.activity`,
    );
    return rows.map(activityOf);
  }

  /** False when the activity already exists. */
  async createActivity(activity: string, fields: ActivityFields, now: number): Promise<boolean> {
    const rows = await this.sql(`insert into ${this.t}.processing_activities (activity, title, script, fulldesc, applicableto, creationtime, updated)
       values ($1, $2, $3, $4, $5, $6, $6) on conflict (activity) do nothing returning activity`,
      [activity, fields.title ?? null, fields.script ?? null, fields.fulldesc ?? null, fields.applicableto ?? null, now],
    );
    return rows.length > 0;
  }

  async updateActivity(activity: string, fields: ActivityFields & { activity?: string | undefined }, now: number): Promise<void> {
    const params: unknown[] = [activity, now];
    const sets = assignments(fields, ACTIVITY_COLUMNS, params);
    if (fields.activity !== undefined && fields.activity !== activity) {
      params.push(fields.activity);
      sets.push(`activity = $${params.length}`);
    }
    await this.sql(`update ${this.t}.processing_activities set ${[...sets, 'updated = $2'].join(', ')} where activity = $1`, params);
  }

  async deleteActivity(activity: string): Promise<boolean> {
    return (await this.sql(`delete from ${this.t}.processing_activities where activity = $1 returning 1`, [activity])).length > 0;
  }

  async link(activity: string, brief: string): Promise<void> {
    await this.sql(`insert into ${this.t}.activity_legal_bases (activity, brief) values ($1, $2) on conflict do nothing`, [activity, brief]);
  }

  async unlink(activity: string, brief: string): Promise<void> {
    await this.sql(`delete from ${this.t}.activity_legal_bases where activity = $1 and brief = $2`, [activity, brief]);
  }
}
