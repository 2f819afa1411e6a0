// The gate an operation passes through to reach people: made for one call from what admission decided
// (admission.ts), and asked by the operation at each step that reaches a person. It owns what the call has learnt
// so far (the person judged, the fields the answer may show); `grep gate.person api/` lists every place a person is
// judged: the one door, ops/subject.ts, through which every operation finds the people it is about.
import type { Stores } from '../store/stores.js';
import type { OpDefinition } from './define.js';
import { judgeByGroups, judgeRole, subjectFacts, type Admission, type SubjectFacts } from './admission.js';
import type { Principal } from '../vault/credentials.js';
import type { Services } from '../vault/services.js';
import type { UserRow } from '../store/users.js';
import type { FieldGrant } from '../vault/policy.js';
import { forbidden, Messages } from '../errors.js';

export class Gate {
  /** The profile fields the answer may show; narrowed once a person is judged. */
  private shown: FieldGrant;
  /** Refused unless the person it is about is found and judged allowed (admission.ts). */
  private denied: boolean;
  /** The person judged, as a role's conditions saw them: another action of the call is judged on them too. */
  private subject: SubjectFacts | undefined;
  /** The other person a login xtoken reached through its group roles. */
  private other: string | undefined;

  constructor(
    private readonly admission: Admission,
    /** The operation's stores (in its transaction, for writes): where a judgement reads the person's facts. */
    private readonly stores: Stores,
  ) {
    this.shown = admission.fields;
    this.denied = admission.deniedUnlessSubject;
  }

  /** A gate that judges nothing: public calls, whose every person is theirs to name (a shared record, a login). */
  static open(services: Services, principal: Principal, stores: Stores): Gate {
    const asker = { services, principal, tenantId: stores.tenantId, metadata: {} };
    return new Gate({ asker, op: { name: '', kinds: [] }, fields: '*', deniedUnlessSubject: false }, stores);
  }

  /** The profile fields the answer may show; narrowed once a person is judged. */
  get fields(): FieldGrant {
    return this.shown;
  }

  /**
   * The person the call reached (or that it reached nobody: null), judged now. A role whose policies ask about the
   * person judges the call on them; a login xtoken reaching someone else's record, or none, is refused the same
   * 403 unless its group roles allow it, so it learns nothing about who exists.
   */
  async person(row: UserRow | null): Promise<void> {
    const { asker, role, op } = this.admission;
    if (role) {
      // No such person: denied like any refusal, whatever the verdict without them, so a caller whose policies ask
      // about the person cannot tell a person it is refused from one who does not exist.
      if (!row) throw forbidden(Messages.apiDenied);
      this.subject = await subjectFacts(asker.services, asker.tenantId, this.stores, row, role.needs);
      const fields = role.judgeOrNull(this.subject);
      if (fields === null) throw forbidden(Messages.apiDenied);
      this.shown = fields;
      this.denied = false;
    }
    const { principal } = asker;
    if (principal.kind === 'login' && row?.token !== principal.userToken) {
      // A login xtoken reaching someone else's record: its group roles' policies decide, and may mask the answer.
      if (!row) throw forbidden();
      this.other = row.token;
      this.shown = await judgeByGroups(asker, op, row.token, this.stores);
    }
  }

  /** Whether the caller's policies ask about the person (a role's `${user:…}` or `${agreement:…}` conditions). */
  get asksAboutPeople(): boolean {
    return this.admission.role !== undefined;
  }

  /** Whether a list must judge each person it would answer (a role whose policies ask about the person). */
  get judgesEach(): boolean {
    return this.admission.role !== undefined && this.admission.op.judges === 'list';
  }

  /** Each listed person's grant (null: leave them out); everyone the call's own grant when people are not judged. */
  async list(people: { row: UserRow; profile: Record<string, unknown> }[]): Promise<(FieldGrant | null)[]> {
    const { role, asker } = this.admission;
    if (!role || !this.judgesEach) return people.map(() => this.shown);
    // Each listed person is judged on their own; the answer is masked row by row, so nothing is left to mask.
    this.denied = false;
    this.shown = '*';
    const grants: (FieldGrant | null)[] = [];
    for (const { row, profile } of people) {
      const facts = await subjectFacts(asker.services, asker.tenantId, this.stores, row, { profile: false, agreements: role.needs.agreements });
      grants.push(role.judgeOrNull({ ...facts, profile }));
    }
    return grants;
  }

  /**
   * One more action the operation performs (v1's creations; a patch or a share reading profile values, as UserGet),
   * for the same caller and on the person already judged: 403 when refused, else the profile fields it may see.
   */
  async also(op: Pick<OpDefinition, 'name' | 'kinds' | 'masks' | 'login'>): Promise<FieldGrant> {
    const { asker } = this.admission;
    const { principal } = asker;
    if (principal.kind === 'login') {
      if (op.login !== 'own') throw forbidden();
      return this.other ? await judgeByGroups(asker, op, this.other, this.stores) : '*';
    }
    if (principal.kind !== 'role') return '*';
    const verdict = await judgeRole(asker.services, principal, op, asker.metadata);
    const grant = verdict.judgesSubject && this.subject ? verdict.judgeOrNull(this.subject) : verdict.grant;
    if (grant === null) throw forbidden(Messages.apiDenied);
    return grant;
  }

  /** After the operation ran: a call that had to judge its person and did not is refused. */
  assertJudged(): void {
    if (this.denied) throw forbidden(Messages.apiDenied);
  }
}
