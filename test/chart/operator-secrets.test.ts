// Finding N16: the operator's RBAC, as the chart renders it, never reaches the vault's own Secrets (root token,
// wrapping key, keyring, database): by default it watches a namespace of its own, and the chart refuses to put its
// Role in the release namespace. Every RBAC object of the release is rendered and the operator's service account is
// judged by the Kubernetes API double's RBAC matcher, as an API server would judge it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { allows, type PolicyRule, type User } from '../operator/kube-double/authz.js';
import { helmMerge, TemplateFailure } from './render.js';
import { chartDir, defaults, renderer, values } from './release.js';

const RELEASE_NAMESPACE = 'vault';
type Manifest = { kind: string; metadata: { name: string; namespace?: string }; [k: string]: any };

/** Every manifest the release renders with these values. */
function renderAll(v: object): Manifest[] {
  const files = readdirSync(join(chartDir, 'templates')).filter((f) => f.endsWith('.yaml'));
  return files.flatMap((f) =>
    YAML.parseAllDocuments(renderer.render(f, v))
      .map((d) => d.toJS() as Manifest | null)
      .filter((m): m is Manifest => !!m),
  );
}

/** The operator's service account with exactly the rules the release binds to it. */
function operatorUser(manifests: Manifest[]): User {
  const sa = manifests.find((m) => m.kind === 'ServiceAccount' && m.metadata.name.endsWith('-operator'))!;
  const rulesOf = (kind: string, name: string): PolicyRule[] => manifests.find((m) => m.kind === kind && m.metadata.name === name)?.rules ?? [];
  const user: Required<User> = { name: `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`, clusterRules: [], namespaceRules: {} };
  for (const b of manifests.filter((m) => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding')) {
    if (!b.subjects.some((s: { kind: string; name: string }) => s.kind === 'ServiceAccount' && s.name === sa.metadata.name)) continue;
    const rules = rulesOf(b.roleRef.kind, b.roleRef.name);
    if (b.kind === 'ClusterRoleBinding') user.clusterRules.push(...rules);
    else (user.namespaceRules[b.metadata.namespace!] ??= []).push(...rules);
  }
  return user;
}

/** The Secrets the vault itself uses: every Secret its pods mount or read a key of, and the ones the chart makes. */
function vaultSecrets(manifests: Manifest[]): string[] {
  const names = new Set(manifests.filter((m) => m.kind === 'Secret').map((m) => m.metadata.name));
  const api = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name.endsWith('-api'))!;
  const pod = api.spec.template.spec;
  for (const v of pod.volumes ?? []) if (v.secret) names.add(v.secret.secretName);
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) names.add(e.valueFrom.secretKeyRef.name);
  }
  return [...names];
}

const can = (user: User, verb: string, namespace: string, name?: string) =>
  allows(user, { verb, group: '', resource: 'secrets', subresource: undefined, namespace, name });

const example = (f: string) => YAML.parse(readFileSync(join(chartDir, 'examples', f), 'utf8'));
const releases: [string, object][] = [
  ['the default values (with an external database)', values()],
  ['the try-out example', helmMerge(defaults, example('values-try-out.yaml'))],
  ['the production example', helmMerge(values(), example('values-production.yaml'))],
  ['your own root token and wrapping key Secrets', values({ rootToken: { existingSecret: 'my-root' }, wrappingKey: { existingSecret: 'my-key' } })],
  ['a watched namespace of your choice', values({ operator: { watchNamespace: 'team-a' } })],
];

describe('the operator’s reach into Secrets', () => {
  it.each(releases)('never covers the vault’s own Secrets: %s', (_, v) => {
    const manifests = renderAll(v);
    const user = operatorUser(manifests);
    const secrets = vaultSecrets(manifests);
    expect(secrets).toEqual(expect.arrayContaining([expect.stringMatching(/root-token|my-root/), expect.stringMatching(/wrapping-key|my-key/)]));
    for (const name of secrets) {
      for (const verb of ['get', 'update', 'delete', 'patch']) expect(can(user, verb, RELEASE_NAMESPACE, name), `${verb} Secret ${name}`).toBe(false);
    }
    for (const verb of ['list', 'watch', 'create']) expect(can(user, verb, RELEASE_NAMESPACE), `${verb} Secrets`).toBe(false);
    // It still does its job where it watches: the Tenants' and Roles' Secrets.
    const watched = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name.endsWith('-operator'))!.spec.template.spec.containers[0].env.find(
      (e: { name: string }) => e.name === 'WATCH_NAMESPACE',
    ).value as string;
    expect(watched).not.toBe(RELEASE_NAMESPACE);
    for (const verb of ['get', 'create', 'update', 'delete']) expect(can(user, verb, watched, 'acme-admin'), `${verb} in ${watched}`).toBe(true);
  });

  it('watches "<release namespace>-tenants" by default, creates it and lets its pods call the api', () => {
    const manifests = renderAll(values());
    const ns = manifests.find((m) => m.kind === 'Namespace')!;
    expect(ns.metadata.name).toBe(`${RELEASE_NAMESPACE}-tenants`);
    expect(ns.metadata).toMatchObject({ annotations: { 'helm.sh/resource-policy': 'keep' } });
    const policy = manifests.find((m) => m.kind === 'NetworkPolicy' && m.metadata.name.endsWith('-api'))!;
    expect(policy.spec.ingress[0].from).toContainEqual({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': `${RELEASE_NAMESPACE}-tenants` } } });
    expect(renderAll(values({ operator: { createWatchNamespace: false } })).some((m) => m.kind === 'Namespace')).toBe(false);
    expect(renderAll(values({ operator: { watchNamespace: 'team-a' } })).some((m) => m.kind === 'Namespace')).toBe(false);
  });

  it('refuses to put the operator’s Role in the release namespace', () => {
    const inRelease = values({ operator: { watchNamespace: RELEASE_NAMESPACE } });
    expect(() => renderer.render('api-deployment.yaml', inRelease)).toThrow(TemplateFailure);
    expect(() => renderer.render('api-deployment.yaml', inRelease)).toThrow(/vault's own Secrets/);
  });
});
