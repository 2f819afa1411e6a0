// The Helm chart, checked without Helm: values against values.schema.json, the .Values paths templates use, the
// CRDs and example resources, the operator's RBAC against every Kubernetes call in operator/, and the settings
// the templates pass to the api, tokenizer and operator against what those processes read.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { allows, type PolicyRule } from '../operator/kube-double/authz.js';
import { loadCrdTypes } from '../operator/kube-double/resources.js';
import { chartOperatorRules } from '../operator/chart-rbac.js';
import { RoleSpec, TenantSpec } from '../../operator/types/resources.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const chart = join(root, 'charts/strongroom');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const templates = readdirSync(join(chart, 'templates')).filter((f) => f.endsWith('.yaml') || f.endsWith('.tpl') || f.endsWith('.txt'));
const templateText = (f: string) => readFileSync(join(chart, 'templates', f), 'utf8');
const values = YAML.parse(read('charts/strongroom/values.yaml'));
const schema = JSON.parse(read('charts/strongroom/values.schema.json'));

/** Helm's merge of a values file over the defaults: maps merge, everything else replaces, null removes. */
function helmMerge(base: any, over: any): any {
  if (over === null) return undefined;
  if (typeof base !== 'object' || base === null || Array.isArray(base) || typeof over !== 'object' || Array.isArray(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const merged = helmMerge(base[k], v);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

const validateValues = new Ajv({ allErrors: true, strict: false }).compile(schema);
const exampleValues = readdirSync(join(chart, 'examples')).filter((f) => f.startsWith('values-'));

describe('values', () => {
  it('values.yaml and every example values file validate against values.schema.json', () => {
    expect(validateValues(values), JSON.stringify(validateValues.errors)).toBe(true);
    expect(exampleValues.length).toBeGreaterThanOrEqual(3);
    for (const f of exampleValues) {
      const merged = helmMerge(values, YAML.parse(read(`charts/strongroom/examples/${f}`)));
      expect(validateValues(merged), `${f}: ${JSON.stringify(validateValues.errors)}`).toBe(true);
    }
  });

  it('the schema refuses unknown keys, bad keys and a root user', () => {
    const bad = (patch: object) => !validateValues(helmMerge(values, patch));
    expect(bad({ api: { replicaCount: 3 } })).toBe(true);
    expect(bad({ wrappingKey: { value: 'not-64-hex' } })).toBe(true);
    expect(bad({ rootToken: { value: 'not-a-uuid' } })).toBe(true);
    expect(bad({ files: { store: 'ftp' } })).toBe(true);
    expect(bad({ database: { url: 'mysql://x' } })).toBe(true);
    expect(bad({ podSecurityContext: { runAsNonRoot: false } })).toBe(true);
    expect(bad({ wrappingKey: { value: 'a'.repeat(64) } })).toBe(false);
  });

  it('every .Values path a template uses exists in values.yaml', () => {
    const missing: string[] = [];
    for (const f of templates) {
      for (const m of templateText(f).matchAll(/\$?\.Values((?:\.[A-Za-z0-9_]+)+)/g)) {
        const path = m[1]!.slice(1).split('.');
        let node: any = values;
        for (const key of path) node = node !== null && typeof node === 'object' && key in node ? node[key] : Symbol.for('missing');
        if (node === Symbol.for('missing')) missing.push(`${f}: .Values.${path.join('.')}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('templates', () => {
  it('hold one resource each and balance their blocks', () => {
    for (const f of templates.filter((t) => t.endsWith('.yaml'))) {
      const text = templateText(f);
      expect(text.match(/^kind: /gm)?.length ?? 0, f).toBeLessThanOrEqual(1);
      const opens = text.match(/\{\{-?\s*(if|with|range|define)\b/g)?.length ?? 0;
      const ends = text.match(/\{\{-?\s*end\s*-?\}\}/g)?.length ?? 0;
      expect(ends, f).toBe(opens);
    }
  });

  it('run every container under the restricted profile, with the api probed on /healthz and /readyz', () => {
    const api = templateText('api-deployment.yaml');
    const operator = templateText('operator-deployment.yaml');
    const helpers = templateText('_helpers.tpl');
    const tokenizer = /define "strongroom\.tokenizer\.container"([\s\S]*?)\{\{- end -\}\}/.exec(helpers)![1]!;
    for (const [name, text] of [['api', api], ['operator', operator], ['tokenizer', tokenizer]] as const) {
      expect(text, name).toMatch(/securityContext:\s*\n\s*\{\{-\s*(include "strongroom\.containerSecurityContext" \.|\$secure) \| nindent/);
    }
    expect(api.match(/^\s+- name: (\w+)\n\s+image:/gm)?.length).toBe(2);
    expect(api).toContain('command: [sh, -c');
    const secure = YAML.parse(/define "strongroom\.containerSecurityContext" -\}\}\n([\s\S]*?)\{\{- end -\}\}/.exec(helpers)![1]!);
    expect(secure).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
    expect(values.podSecurityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(api).toMatch(/livenessProbe:\s*\n\s*httpGet: \{ path: \/healthz/);
    expect(api).toMatch(/readinessProbe:[\s\S]*?httpGet: \{ path: \/readyz/);
    expect(operator).toMatch(/readinessProbe:[\s\S]*?httpGet: \{ path: \/readyz/);
  });

  it('share the tokenizer socket through an emptyDir that both containers mount, at the path both are told', () => {
    const api = templateText('api-deployment.yaml');
    const helpers = templateText('_helpers.tpl');
    expect(api).toMatch(/- name: run\n\s+emptyDir:/);
    expect(api).toContain('- { name: run, mountPath: {{ $run }} }');
    expect(helpers).toContain('- { name: run, mountPath: {{ include "strongroom.paths.run" . }} }');
    expect(api).toContain('{{- $socket := printf "%s/tokenizer.sock" $run }}');
    expect(api).toContain('- { name: STRONGROOM_TOKENIZER_SOCKET, value: {{ $socket | quote }} }');
    expect(helpers).toContain('- { name: STRONGROOM_TOKENIZER_SOCKET, value: {{ printf "%s/tokenizer.sock" (include "strongroom.paths.run" .) | quote }} }');
  });

  it('set only settings the api, tokenizer and operator read, and start the programs the build produces', () => {
    const envNames = (text: string) => [...text.matchAll(/name: ([A-Z][A-Z0-9_]+)\b/g)].map((m) => m[1]!);
    const helpers = templateText('_helpers.tpl');
    const tokenizerBlock = /define "strongroom\.tokenizer\.container"([\s\S]*?)\{\{- end -\}\}/.exec(helpers)![1]!;
    const apiReads = read('api/config.ts') + read('api/store/database.ts');
    const tokenizerReads = read('tokenizer/config.ts');
    const operatorReads = read('operator/config.ts');
    const awsStandard = new Set(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
    // Entries that only feed another one through Kubernetes' $(NAME) expansion (the CloudNativePG credentials in
    // DATABASE_URL) are not settings of the api; every one of them must really be used that way.
    const composedOnly = new Set(['CNPG_APP_USER', 'CNPG_APP_PASSWORD']);
    for (const name of composedOnly) expect(helpers, `DATABASE_URL takes in ${name}`).toContain(`$(${name})`);
    for (const name of envNames(templateText('api-deployment.yaml'))) {
      if (!awsStandard.has(name) && !composedOnly.has(name)) expect(apiReads, `api reads ${name}`).toContain(name);
    }
    for (const name of envNames(tokenizerBlock)) expect(tokenizerReads, `tokenizer reads ${name}`).toContain(name);
    for (const name of envNames(templateText('operator-deployment.yaml'))) expect(operatorReads, `operator reads ${name}`).toContain(name);
    expect(read('api/config.ts')).toMatch(/AWS_ACCESS_KEY_ID && env\.AWS_SECRET_ACCESS_KEY/);
    for (const [file, main] of [['api-deployment.yaml', 'api/main.ts'], ['_helpers.tpl', 'tokenizer/main.ts'], ['operator-deployment.yaml', 'operator/main.ts']]) {
      expect(templateText(file!)).toContain(`command: [node, dist/${main!.replace('.ts', '.js')}]`);
      expect(read(main!)).toBeTruthy();
    }
    const docker = read('Dockerfile');
    expect(docker.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(2);
    expect(docker).toContain('npm ci --omit=dev');
    // Non-root by default; started as root, the supervisor runs the api (1000) and the tokenizer (1001) under their own uids.
    expect(docker).toMatch(/^USER 1000:1000$/m);
    expect(docker).toMatch(/^ENV [^\n]*STRONGROOM_API_UID=1000 STRONGROOM_TOKENIZER_UID=1001$/m);
    // A health check of the api, and the OCI labels, the version and revision given at build.
    expect(docker).toMatch(/^HEALTHCHECK [^\n]*--start-period=/m);
    expect(docker).toContain('/healthz');
    for (const label of ['title', 'description', 'licenses', 'source', 'version', 'revision']) expect(docker).toContain(`org.opencontainers.image.${label}=`);
    expect(docker).toMatch(/COPY --from=build [^\n]*\/app\/dist/);
  });
});

describe('custom resources', () => {
  const crds = readdirSync(join(chart, 'crds')).map((f) => YAML.parse(read(`charts/strongroom/crds/${f}`)));

  /** A structural schema: every node has a type, unless it preserves unknown fields. */
  function unstructured(node: any, path: string): string[] {
    if (!node || typeof node !== 'object') return [];
    const own = node.type || node['x-kubernetes-preserve-unknown-fields'] || node['x-kubernetes-int-or-string'] ? [] : [path];
    const props = Object.entries(node.properties ?? {}).flatMap(([k, v]) => unstructured(v, `${path}.${k}`));
    return [...own, ...props, ...(node.items ? unstructured(node.items, `${path}[]`) : [])];
  }

  it('define namespaced v1alpha1 Tenant and Role with structural schemas, status, printer columns and short names', () => {
    expect(crds.map((c) => c.metadata.name).sort()).toEqual(['roles.strongroom.dev', 'tenants.strongroom.dev']);
    for (const crd of crds) {
      expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
      expect(crd.spec).toMatchObject({ group: 'strongroom.dev', scope: 'Namespaced' });
      expect(crd.spec.names.shortNames.length).toBeGreaterThan(0);
      expect(crd.spec.names.categories).toContain('strongroom');
      const [v] = crd.spec.versions;
      expect(crd.spec.versions).toHaveLength(1);
      expect(v).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
      const columns = v.additionalPrinterColumns.map((c: { name: string }) => c.name);
      expect(columns).toEqual(expect.arrayContaining(['ID', 'Ready', 'Age']));
      expect(unstructured(v.schema.openAPIV3Schema, 'root')).toEqual([]);
      const status = v.schema.openAPIV3Schema.properties.status.properties;
      expect(Object.keys(status)).toEqual(expect.arrayContaining(['observedGeneration', 'conditions']));
    }
  });

  it('accept the example Tenant and Role as they are: nothing defaulted away, nothing pruned, no error', () => {
    const types = loadCrdTypes();
    for (const f of ['tenant.yaml', 'role.yaml']) {
      const doc = YAML.parse(read(`charts/strongroom/examples/${f}`));
      const type = types.find((t) => t.kind === doc.kind)!;
      const admitted = structuredClone(doc);
      expect(type.admit!(admitted, undefined), f).toEqual([]);
      expect(admitted, `${f} lost or gained fields`).toEqual(doc);
    }
    const broken = YAML.parse(read('charts/strongroom/examples/role.yaml'));
    broken.spec.xtoken.lifetime = '12 hours';
    expect(types.find((t) => t.kind === 'Role')!.admit!(broken, undefined).join()).toContain('spec.xtoken.lifetime');
  });
});

describe('the operator and the CRDs', () => {
  it('agree on what a valid spec is', () => {
    const types = loadCrdTypes();
    const examples = Object.fromEntries(['tenant.yaml', 'role.yaml'].map((f) => [f, YAML.parse(read(`charts/strongroom/examples/${f}`))]));
    const cases: [string, string, (spec: any) => void][] = [
      ['tenant.yaml', 'a good tenant', () => {}],
      ['tenant.yaml', 'an upper-case tenantName', (s) => (s.tenantName = 'Acme')],
      ['tenant.yaml', 'no organisation', (s) => delete s.organisation],
      ['tenant.yaml', 'a Secret name with a slash', (s) => (s.adminTokenSecretName = 'a/b')],
      ['tenant.yaml', 'an unknown deletionPolicy', (s) => (s.deletionPolicy = 'Orphan')],
      ['role.yaml', 'a good role', () => {}],
      ['role.yaml', 'an upper-case roleName', (s) => (s.roleName = 'Support')],
      ['role.yaml', 'no policies', (s) => (s.policies = [])],
      ['role.yaml', 'two policies of one name', (s) => (s.policies = [s.policies[0], s.policies[0]])],
      ['role.yaml', 'a lifetime in words', (s) => (s.xtoken.lifetime = '1 hour')],
      ['role.yaml', 'no xtoken Secret', (s) => delete s.xtoken.secretName],
    ];
    for (const [file, what, change] of cases) {
      const doc = structuredClone(examples[file]);
      change(doc.spec);
      const crdSays = types.find((t) => t.kind === doc.kind)!.admit!(doc, undefined).length === 0;
      const operatorSays = (doc.kind === 'Tenant' ? TenantSpec : RoleSpec).safeParse(doc.spec).success;
      expect(operatorSays, what).toBe(crdSays);
      expect(crdSays, what).toBe(what.startsWith('a good'));
    }
  });
});

describe('operator RBAC', () => {
  const rules = chartOperatorRules('strongroom-operator');
  const operatorSource = readdirSync(join(root, 'operator'), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => readFileSync(join(d.parentPath, d.name), 'utf8'))
    .join('\n');

  /** Each client-node call in operator/ as the (verb, group, resource) the API server authorises. */
  function callsInSource(): { call: string; verb: string; group: string; resources: string[] }[] {
    const verbs: Record<string, string> = { read: 'get', get: 'get', list: 'list', create: 'create', replace: 'update', patch: 'patch', delete: 'delete' };
    const kinds: Record<string, { group: string; resources: string[] }> = {
      NamespacedSecret: { group: '', resources: ['secrets'] },
      NamespacedEvent: { group: '', resources: ['events'] },
      NamespacedLease: { group: 'coordination.k8s.io', resources: ['leases'] },
      NamespacedCustomObject: { group: 'strongroom.dev', resources: ['tenants', 'roles'] },
      ClusterCustomObject: { group: 'strongroom.dev', resources: ['tenants', 'roles'] },
      NamespacedCustomObjectStatus: { group: 'strongroom.dev', resources: ['tenants/status', 'roles/status'] },
    };
    const found = new Set<string>();
    for (const m of operatorSource.matchAll(/\.(?:custom|core|coordination)\.(read|get|list|create|replace|patch|delete)(\w+?)\(/g)) found.add(`${m[1]}${m[2]}`);
    return [...found].map((call) => {
      const m = /^(read|get|list|create|replace|patch|delete)(\w+)$/.exec(call)!;
      const kind = kinds[m[2]!];
      if (!kind) throw new Error(`the test does not know what ${call} touches: add it to the table`);
      return { call, verb: verbs[m[1]!]!, ...kind };
    });
  }

  it('grants every call the operator makes, and the watches of its informers', () => {
    const calls = callsInSource();
    expect(calls.length).toBeGreaterThanOrEqual(10);
    const leaseNamespace = 'strongroom-system';
    const user = { name: 'operator', clusterRules: rules.watched, namespaceRules: { [leaseNamespace]: rules.lease } };
    for (const c of calls) {
      for (const r of c.resources) {
        const [resource, subresource] = r.split('/') as [string, string | undefined];
        const namespace = c.group === 'coordination.k8s.io' ? leaseNamespace : 'any-team';
        const name = c.verb === 'create' || c.verb === 'list' ? undefined : c.group === 'coordination.k8s.io' ? 'strongroom-operator' : 'x';
        expect(allows(user, { verb: c.verb, group: c.group, resource, subresource, namespace, name }), `${c.call} → ${c.verb} ${r}`).toBe(true);
      }
    }
    expect(operatorSource).toContain('new k8s.ListWatch');
    for (const resource of ['tenants', 'roles']) {
      expect(allows(user, { verb: 'watch', group: 'strongroom.dev', resource, subresource: undefined, namespace: undefined, name: undefined })).toBe(true);
    }
    // Owner references that block their owner's deletion need update on the owner's finalizers subresource.
    expect(operatorSource).toContain('blockOwnerDeletion: true');
    for (const resource of ['tenants', 'roles']) {
      expect(allows(user, { verb: 'update', group: 'strongroom.dev', resource, subresource: 'finalizers', namespace: 'any-team', name: 'x' })).toBe(true);
    }
  });

  it('grants nothing more: no wildcards, no listing of Secrets, the Lease only by name and only in its namespace', () => {
    const all: PolicyRule[] = [...rules.watched, ...rules.lease];
    for (const r of all) {
      for (const list of [r.apiGroups, r.resources, r.verbs]) expect(list).not.toContain('*');
    }
    const user = { name: 'operator', clusterRules: rules.watched, namespaceRules: { 'strongroom-system': rules.lease } };
    const can = (verb: string, group: string, resource: string, namespace: string, name?: string) => allows(user, { verb, group, resource, subresource: undefined, namespace, name });
    expect(can('list', '', 'secrets', 'any-team')).toBe(false);
    expect(can('watch', '', 'secrets', 'any-team')).toBe(false);
    expect(can('delete', 'strongroom.dev', 'tenants', 'any-team', 'x')).toBe(false);
    expect(can('update', 'coordination.k8s.io', 'leases', 'strongroom-system', 'someone-elses-lease')).toBe(false);
    expect(can('get', 'coordination.k8s.io', 'leases', 'any-team', 'strongroom-operator')).toBe(false);
    expect(can('get', '', 'configmaps', 'any-team', 'x')).toBe(false);
  });

  it('binds those rules to the operator ServiceAccount: cluster-wide, or in the watched namespace only', () => {
    for (const f of ['operator-clusterrole.yaml', 'operator-role.yaml']) expect(templateText(f)).toContain('rules:\n{{- include "strongroom.operator.rules" . }}');
    expect(templateText('operator-leader-election-role.yaml')).toContain('rules:\n{{- include "strongroom.operator.leaseRules" . }}');
    for (const f of ['operator-clusterrolebinding.yaml', 'operator-rolebinding.yaml', 'operator-leader-election-rolebinding.yaml']) {
      expect(templateText(f)).toMatch(/subjects:\n\s+- kind: ServiceAccount\n\s+name: \{\{ include "strongroom\.operator\.serviceAccountName" \. \}\}/);
    }
    expect(templateText('operator-clusterrole.yaml')).toContain('{{- if and .Values.operator.enabled .Values.operator.clusterWide }}');
    expect(templateText('operator-role.yaml')).toContain('namespace: {{ include "strongroom.operator.watchNamespace" . }}');
    expect(templateText('operator-deployment.yaml')).toContain('{ name: STRONGROOM_OPERATOR_LEASE_NAME, value: {{ include "strongroom.leaseName" . | quote }} }');
  });
});
