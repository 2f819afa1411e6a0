// The gate an operation passes through to reach people: built by admission (admission.ts) for one call, and asked
// by the operation at each step that reaches a person. `grep gate.person api/` lists every place a person is judged:
// the one door, users.findRow, through which every operation finds the people it is about (ops/subject.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OpDefinition } from './define.js';
import type { Admission } from './admission.js';
import type { Principal } from '../vault/credentials.js';
import type { UserRow } from '../store/users.js';
import type { FieldGrant } from '../vault/policy.js';
import type { PersonGate } from '../vault/scope.js';
import { forbidden, Messages } from '../errors.js';

export class Gate implements PersonGate {
  constructor(
    private readonly admission: Admission,
    private readonly principal: Principal,
    /** The operation's manager (its transaction, for writes): where a judgement reads the person's facts. */
    private readonly em: () => EntityManager,
  ) {}

  /** A gate that judges nothing: public calls, whose every person is theirs to name (a shared record, a login). */
  static open(principal: Principal, em: () => EntityManager): Gate {
    return new Gate({ fields: '*', deniedUnlessSubject: false, authoriseAlso: async () => '*' }, principal, em);
  }

  /** The profile fields the answer may show; narrowed once a person is judged. */
  get fields(): FieldGrant {
    return this.admission.fields;
  }

  /**
   * The person the call reached (or that it reached nobody: null), judged now. A role whose policies ask about the
   * person judges the call on them; a login xtoken reaching someone else's record, or none, is refused the same
   * 403 unless its group roles allow it, so it learns nothing about who exists.
   */
  async person(row: UserRow | null, em: EntityManager = this.em()): Promise<void> {
    if (this.admission.authoriseSubject) await this.admission.authoriseSubject(row, em);
    if (this.principal.kind === 'login' && row?.token !== this.principal.userToken) {
      if (!row || !this.admission.authoriseOther) throw forbidden();
      await this.admission.authoriseOther(row.token, em);
    }
  }

  /** Whether a list must judge each person it would answer (a role whose policies ask about the person). */
  get judgesEach(): boolean {
    return this.admission.judgeListed !== undefined;
  }

  /** Each listed person's grant (null: leave them out); everyone the call's own grant when people are not judged. */
  list(people: { row: UserRow; profile: Record<string, unknown> }[]): Promise<(FieldGrant | null)[]> {
    if (!this.admission.judgeListed) return Promise.resolve(people.map(() => this.admission.fields));
    return this.admission.judgeListed(people, this.em());
  }

  /**
   * One more action the operation performs (v1's creations; a patch or a share reading profile values, as UserGet),
   * for the same caller and on the person already judged: 403 when refused, else the profile fields it may see.
   */
  also(op: Pick<OpDefinition, 'name' | 'kinds' | 'masks' | 'login'>): Promise<FieldGrant> {
    return this.admission.authoriseAlso(op);
  }

  /** After the operation ran: a call that had to judge its person and did not is refused. */
  assertJudged(): void {
    if (this.admission.deniedUnlessSubject) throw forbidden(Messages.apiDenied);
  }
}
