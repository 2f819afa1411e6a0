// Consent: legal bases (why data is processed), each person's agreements to them, and processing activities.
// Agreement statuses arrive under many names (OA, OSS, v1); one canonical form is stored and returned.
import type { Sealer } from './sealed.js';
import type { Scope } from './scope.js';
import type { AgreementRow, LegalBasisRow, LegalBasisFields, ActivityFields } from '../store/consent.js';
import { badRequest, conflict, notFound, Messages } from '../errors.js';

export const AGREEMENT_STATUSES = ['active', 'pending', 'expired', 'canceled', 'revoked'] as const;
export type AgreementStatus = (typeof AGREEMENT_STATUSES)[number];

const STATUS_ALIASES: Record<string, AgreementStatus> = {
  active: 'active',
  accept: 'active',
  accepted: 'active',
  agree: 'active',
  agreed: 'active',
  allow: 'active',
  yes: 'active',
  y: 'active',
  true: 'active',
  on: 'active',
  '1': 'active',
  given: 'active',
  confirmed: 'active',
  pending: 'pending',
  expired: 'expired',
  cancel: 'canceled',
  canceled: 'canceled',
  cancelled: 'canceled',
  withdraw: 'canceled',
  withdrawn: 'canceled',
  reject: 'canceled',
  rejected: 'canceled',
  decline: 'canceled',
  declined: 'canceled',
  disagree: 'canceled',
  no: 'canceled',
  n: 'canceled',
  false: 'canceled',
  off: 'canceled',
  '0': 'canceled',
  revoke: 'revoked',
  revoked: 'revoked',
};

/** The canonical status for any accepted spelling, or undefined. */
export function agreementStatus(value: string | boolean | number): AgreementStatus | undefined {
  return STATUS_ALIASES[String(value).trim().toLowerCase()];
}

export const BASIS_TYPES = ['consent', 'contract', 'legal-requirement', 'legitimate-interest', 'public-interest', 'vital-interest'] as const;
const BASIS_TYPE_ALIASES: Record<string, string> = {
  'contract-agreement': 'contract',
  'legal-obligation': 'legal-requirement',
  'legal-obligations': 'legal-requirement',
  'legal-requirements': 'legal-requirement',
  'legitimate-interests': 'legitimate-interest',
  'vital-interests': 'vital-interest',
};

/** `legitimate_interest`, `Legitimate Interest`, `legitimate-interests` all mean `legitimate-interest`. */
export function basisType(value: string): string | undefined {
  const v = value.trim().toLowerCase().replace(/[_\s]+/g, '-');
  const canonical = BASIS_TYPE_ALIASES[v] ?? v;
  return (BASIS_TYPES as readonly string[]).includes(canonical) ? canonical : undefined;
}

/** What AgreementAccept records beyond status and times; sealed, because it names people. */
export interface AgreementDetails {
  agreementmethod: string;
  referencecode: string;
  lastmodifiedby: string;
  mode: string;
  who: string;
}

const AGREEMENTS_TABLE = 'agreements';

/** An agreement's AAD row: the person and the basis's immutable id, never its renameable brief. */
function agreementRowId(token: string, basisId: string): string {
  return `${token}:${basisId}`;
}

export class Consent {
  constructor(private readonly sealer: Sealer) {}


  /** A live legal basis, or 404 (deleted ones are kept only for their agreements). */
  async basis(scope: Scope, brief: string, forUpdate = false): Promise<LegalBasisRow> {
    const row = await scope.stores.consent.basis(brief, forUpdate);
    if (!row || row.status === 'deleted') throw notFound(Messages.legalBasisNotFound);
    return row;
  }

  async createBasis(scope: Scope, brief: string, fields: LegalBasisFields): Promise<void> {
    const requiredflag = fields.requiredflag ?? false;
    const created = await scope.stores.consent.createBasis(
      brief,
      {
        status: fields.status ?? 'active',
        module: fields.module ?? null,
        shortdesc: fields.shortdesc ?? null,
        fulldesc: fields.fulldesc ?? null,
        basistype: fields.basistype ?? 'consent',
        requiredmsg: requiredflag ? (fields.requiredmsg ?? null) : null,
        requiredflag,
        usercontrol: fields.usercontrol ?? true,
      },
      scope.now,
    );
    if (!created) throw conflict(Messages.duplicateLegalBasis);
  }

  async updateBasis(scope: Scope, brief: string, fields: LegalBasisFields & { brief?: string | undefined }): Promise<LegalBasisRow> {
    const store = scope.stores.consent;
    const current = await this.basis(scope, brief, true);
    if (fields.brief !== undefined && fields.brief !== brief && (await store.basis(fields.brief))) throw conflict(Messages.duplicateLegalBasis);
    // The message is kept only while consent is mandatory.
    const requiredflag = fields.requiredflag ?? current.requiredflag;
    const next = { ...fields, requiredmsg: requiredflag ? (fields.requiredmsg ?? current.requiredmsg) : null };
    await store.updateBasis(brief, next, scope.now);
    return current;
  }

  /** With agreements the basis is marked deleted and they are revoked; without, it goes. */
  async deleteBasis(scope: Scope, brief: string): Promise<'deleted' | 'marked'> {
    const store = scope.stores.consent;
    await this.basis(scope, brief, true);
    if (await store.hasAgreements(brief)) {
      await store.revokeAll(brief, scope.now);
      await store.updateBasis(brief, { status: 'deleted' }, scope.now);
      return 'marked';
    }
    await store.deleteBasis(brief);
    return 'deleted';
  }

  async accept(
    scope: Scope,
    token: string,
    brief: string,
    a: { status: AgreementStatus; starttime: number; endtime: number; details: AgreementDetails },
  ): Promise<void> {
    const found = await scope.stores.consent.basisWithId(brief);
    if (!found || found.basis.status === 'deleted') throw notFound(Messages.legalBasisNotFound);
    if (found.basis.status !== 'active') throw conflict(Messages.legalBasisInactive);
    const basisId = found.id;
    const details = await this.sealer.sealFor(scope, token, { table: AGREEMENTS_TABLE, rowId: agreementRowId(token, basisId) }, a.details);
    await scope.stores.consent.upsertAgreement({ user_token: token, brief, status: a.status, details, starttime: a.starttime, endtime: a.endtime }, scope.now);
  }

  async agreement(scope: Scope, token: string, brief: string): Promise<Record<string, unknown>> {
    const row = await scope.stores.consent.agreement(token, brief);
    if (!row) throw notFound(Messages.agreementNotFound);
    return (await this.present(scope, [row]))[0]!;
  }

  async agreementsOf(scope: Scope, token: string): Promise<Record<string, unknown>[]> {
    return this.present(scope, await scope.stores.consent.agreementsOf(token));
  }

  /** Withdraws consent: `canceled`, and no end time (OSS). 404 when the person never agreed. */
  async cancel(scope: Scope, token: string, brief: string): Promise<AgreementStatus> {
    const store = scope.stores.consent;
    await this.basis(scope, brief);
    const row = await store.agreement(token, brief, true);
    if (!row) throw notFound(Messages.agreementNotFound);
    await store.setAgreementStatus(token, brief, 'canceled', 0, scope.now);
    return row.status as AgreementStatus;
  }

  /**
   * The agreements as the contract shows them (§4.15), with the status they have now: reads never show an
   * agreement in force past its end, nor pending past its start, whether or not the sweeper has run.
   */
  private async present(scope: Scope, rows: AgreementRow[]): Promise<Record<string, unknown>[]> {
    const keys = await this.sealer.keys.of(scope, [...new Set(rows.map((r) => r.user_token))]);
    // A person whose key is gone is erased: their agreements are shown nowhere.
    rows = rows.filter((r) => keys.get(r.user_token));
    const details = await this.sealer.openEach<AgreementDetails>(
      scope.tenantId,
      AGREEMENTS_TABLE,
      rows.map((r) => ({ rowId: agreementRowId(r.user_token, r.basis_id), blob: r.details, key: { subject: r.user_token, wrapped: keys.get(r.user_token)! } })),
    );
    return rows.map((r, i) => ({
      brief: r.brief,
      token: r.user_token,
      status: effectiveStatus(r, scope.now),
      ...details[i],
      starttime: r.starttime,
      endtime: r.endtime,
      finaltime: r.endtime,
      creationtime: r.creationtime,
      when: r.updated,
    }));
  }

  async createActivity(scope: Scope, activity: string, fields: ActivityFields): Promise<void> {
    if (!(await scope.stores.consent.createActivity(activity, fields, scope.now))) throw conflict(Messages.duplicateActivity);
  }

  async activity(scope: Scope, activity: string, forUpdate = false) {
    const row = await scope.stores.consent.activity(activity, forUpdate);
    if (!row) throw notFound(Messages.activityNotFound);
    return row;
  }

  /** Links (or unlinks) an activity and a legal basis: 404 when either is unknown. */
  async setLink(scope: Scope, activity: string, brief: string, linked: boolean): Promise<void> {
    await this.activity(scope, activity, true);
    await this.basis(scope, brief);
    const store = scope.stores.consent;
    await (linked ? store.link(activity, brief) : store.unlink(activity, brief));
  }

  async updateActivity(scope: Scope, activity: string, fields: ActivityFields & { activity?: string | undefined }): Promise<void> {
    const store = scope.stores.consent;
    await this.activity(scope, activity, true);
    if (fields.activity !== undefined && fields.activity !== activity && (await store.activity(fields.activity))) throw conflict(Messages.duplicateActivity);
    await store.updateActivity(activity, fields, scope.now);
  }
}

/** The status an agreement has at `now`. */
export function effectiveStatus(r: Pick<AgreementRow, 'status' | 'starttime' | 'endtime' | 'updated'>, now: number): string {
  let status = r.status;
  // Pending until a start that lay ahead when it was given; a pending given with no such start stays pending.
  if (status === 'pending' && r.starttime > r.updated && r.starttime <= now) status = 'active';
  if ((status === 'active' || status === 'pending') && r.endtime > 0 && r.endtime <= now) status = 'expired';
  return status;
}

/** A status for AgreementAccept, or the 400 naming the field. */
export function parseAgreementStatus(value: string | undefined, starttime: number, now: number): AgreementStatus {
  if (value === undefined) return starttime > now ? 'pending' : 'active';
  const status = agreementStatus(value);
  if (!status) throw badRequest(`Invalid API request parameter: status must be one of ${AGREEMENT_STATUSES.join(', ')} (or an alias such as yes, accept, no)`);
  // Consent given for later is not in force until then.
  return status === 'active' && starttime > now ? 'pending' : status;
}
