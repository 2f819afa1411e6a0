// Authentication by bearer token and RBAC authorisation for the Kubernetes API double, with the API server's
// rule matching: apiGroups, resources (with "resource/subresource"), verbs, resourceNames, and "*".
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface User {
  name: string;
  /** Rules granted in every namespace (a ClusterRole bound with a ClusterRoleBinding); undefined: everything. */
  clusterRules?: PolicyRule[];
  /** Rules granted in one namespace each (Roles, or ClusterRoles bound with a RoleBinding). */
  namespaceRules?: Record<string, PolicyRule[]>;
}

export interface RequestAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
}

function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  const any = (list: string[] | undefined, value: string) => (list ?? []).some((x) => x === '*' || x === value);
  if (!any(rule.apiGroups, a.group)) return false;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!(rule.resources ?? []).some((r) => r === '*' || r === resource || (a.subresource && r === `*/${a.subresource}`))) return false;
  if (!any(rule.verbs, a.verb)) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0) {
    // Names cannot restrict list, watch or create: the request carries no single name.
    if (!a.name) return false;
    if (!rule.resourceNames.includes(a.name)) return false;
  }
  return true;
}

export function allows(user: User, a: RequestAttributes): boolean {
  if (user.clusterRules === undefined && user.namespaceRules === undefined) return true;
  if ((user.clusterRules ?? []).some((r) => ruleAllows(r, a))) return true;
  if (a.namespace === undefined) return false;
  return (user.namespaceRules?.[a.namespace] ?? []).some((r) => ruleAllows(r, a));
}

/** The API server's words for a refusal. */
export function forbiddenMessage(user: User, a: RequestAttributes): string {
  const what = a.group ? `${a.resource}.${a.group}` : a.resource;
  const subject = a.name ? `${what} "${a.name}"` : what;
  const sub = a.subresource ? ` subresource "${a.subresource}"` : '';
  const group = `in API group "${a.group}"`;
  const where = a.namespace ? ` in the namespace "${a.namespace}"` : ' at the cluster scope';
  return `${subject} is forbidden: User "${user.name}" cannot ${a.verb} resource "${a.resource}"${sub} ${group}${where}`;
}
