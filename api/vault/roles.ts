// Roles and policies: the main tenant defines them; role xtokens of any tenant are judged by them.
import type { GlobalStores } from '../store/stores.js';
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/database.js';
import type { PolicyRow, RoleRow } from '../store/roles.js';
import { badRequest, conflict, notFound, Messages } from '../errors.js';
import { parsePolicy, type PolicyStatement, type PolicyVocabulary } from './policy.js';
import { conflictOnUnique } from '../store/errors.js';


/** A policy document as PolicyCreate and PolicyUpdate accept it, or a 400 naming what is wrong. */
export function checkedPolicy(doc: unknown, vocabulary: PolicyVocabulary): PolicyStatement[] {
  const p = parsePolicy(doc, vocabulary);
  if ('reason' in p) throw badRequest(`Invalid API request parameter: policy: ${p.reason}`);
  return p.statements;
}

/** A policy as PolicyCreate writes it; `actions` are the vault's operation names its Actions must match. */
export interface NewPolicy extends PolicyVocabulary {
  name: string;
  desc: string;
  document: unknown;
  managedby: string | undefined;
  now: number;
}

/** The roles a statement's Principal names exactly (patterns ending in `*` name none). */
const principalNames = (s: PolicyStatement): string[] =>
  (s.Principal === undefined ? [] : Array.isArray(s.Principal.Role) ? s.Principal.Role : [s.Principal.Role]).filter((n) => !n.endsWith('*'));

const REFUSE_ALL: PolicyStatement = { Effect: 'Deny', Action: '*', Resource: '*' };

/** A role's statements as the engine judges them, and where each came from. */
export interface RoleStatements {
  rolename: string;
  statements: PolicyStatement[];
  sources: { policyname: string; index: number }[];
}

export class Roles {
  // Short TTL, like credentials: a changed policy applies on every replica within seconds.
  private readonly statements = new LRUCache<number, RoleStatements>({ max: 10_000, ttl: 5_000 });

  constructor(private readonly db: Database) {}


  /** `managedby` is the owner mark; an empty one is no mark. */
  async createRole(stores: GlobalStores, name: string, desc: string, managedby: string | undefined, now: number): Promise<number> {
    return await conflictOnUnique(Messages.duplicateRole, () => stores.roles.createRole(name, desc, managedby || null, now));
  }

  async role(stores: GlobalStores, by: { id?: number | undefined; name?: string | undefined }): Promise<RoleRow> {
    const r = await stores.roles.role(by);
    if (!r) throw notFound(Messages.roleNotFound);
    return r;
  }

  /**
   * Absent fields stay; `managedby: ''` removes the owner mark. A rename is refused (409) while a policy's Principal
   * names the role exactly: its statements, Denies included, would silently stop applying to the role.
   */
  async updateRole(stores: GlobalStores, id: number, set: { name?: string | undefined; desc?: string | undefined; managedby?: string | undefined }): Promise<void> {
    if (set.name !== undefined) await this.checkNotPrincipal(stores, id, set.name);
    await conflictOnUnique(Messages.duplicateRole, () => stores.roles.updateRole(id, set));
    this.statements.clear();
  }

  async createPolicy(stores: GlobalStores, p: NewPolicy): Promise<number> {
    await this.checkPrincipals(stores, checkedPolicy(p.document, p));
    return await conflictOnUnique(Messages.duplicatePolicy, () => stores.roles.createPolicy(p.name, p.desc, p.document, p.managedby || null, p.now));
  }

  /** 409 when the role (unless keeping its name) is named exactly by a policy's Principal. */
  private async checkNotPrincipal(stores: GlobalStores, roleId: number, newName: string): Promise<void> {
    const store = stores.roles;
    const role = await store.role({ id: roleId });
    if (!role || role.rolename === newName) return;
    for (const row of await store.policies()) {
      const p = parsePolicy((await store.policy({ id: row.policyid }))?.policy);
      if ('statements' in p && p.statements.some((s) => principalNames(s).includes(role.rolename))) {
        throw conflict(`The role is named in the Principal of policy ${row.policyname}: change that policy first`);
      }
    }
  }

  /**
   * Every role a Principal names exactly must exist (400 naming it), so a Deny cannot be written for a role that is
   * not there. `*` and `prefix*` patterns, like every name, are matched at each call against the caller's role name
   * (a named role is not renamed while named, see updateRole; one deleted later is matched by nobody).
   */
  private async checkPrincipals(stores: GlobalStores, statements: readonly PolicyStatement[]): Promise<void> {
    for (const [i, s] of statements.entries()) {
      for (const name of principalNames(s)) {
        if (!(await stores.roles.role({ name }))) throw badRequest(`Invalid API request parameter: policy: ${i}.Principal.Role: no role named ${name}`);
      }
    }
  }

  async policy(stores: GlobalStores, by: { id?: number | undefined; name?: string | undefined }): Promise<PolicyRow> {
    const p = await stores.roles.policy(by);
    if (!p) throw notFound(Messages.policyNotFound);
    return p;
  }

  async updatePolicy(
    stores: GlobalStores,
    id: number,
    set: { name?: string | undefined; desc?: string | undefined; document?: unknown; managedby?: string | undefined },
    vocabulary: PolicyVocabulary,
  ): Promise<void> {
    if (set.document !== undefined) await this.checkPrincipals(stores, checkedPolicy(set.document, vocabulary));
    await conflictOnUnique(Messages.duplicatePolicy, () => stores.roles.updatePolicy(id, set));
    this.statements.clear();
  }

  async link(stores: GlobalStores, roleId: number, policyId: number): Promise<void> {
    await stores.roles.link(roleId, policyId);
    this.statements.clear();
  }

  async unlink(stores: GlobalStores, roleId: number, policyId: number): Promise<void> {
    await stores.roles.unlink(roleId, policyId);
    this.statements.clear();
  }

  /** The role goes with its links and xtokens; group memberships that named it keep no role. */
  async deleteRole(stores: GlobalStores, roleId: number): Promise<void> {
    await stores.roles.deleteRole(roleId);
    this.statements.clear();
  }

  async deletePolicy(stores: GlobalStores, policyId: number): Promise<void> {
    await stores.roles.deletePolicy(policyId);
    this.statements.clear();
  }

  /** The role's name and the statements of its policies; null when the role is gone. */
  /** The role's statements, in link order, each with the policy and the index within it it came from. */
  async statementsOf(roleId: number): Promise<RoleStatements | null> {
    const hit = this.statements.get(roleId);
    if (hit) return hit;
    const found = await this.db.global().roles.documentsOf(roleId);
    if (!found) return null;
    const parsed = found.documents.map((d) => {
      const p = parsePolicy(d.document);
      // A stored document the engine no longer accepts (one written before a rule was added) refuses everything:
      // dropping it alone could drop a Deny.
      return { policyname: d.policyname, statements: 'statements' in p ? p.statements : [REFUSE_ALL] };
    });
    const statements = parsed.flatMap((p) => p.statements);
    const sources = parsed.flatMap((p) => p.statements.map((_, index) => ({ policyname: p.policyname, index })));
    const value = { rolename: found.rolename, statements, sources };
    this.statements.set(roleId, value);
    return value;
  }
}
