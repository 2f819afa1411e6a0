// The resource types the Kubernetes API double serves: a few built-ins and the CRDs of charts/strongroom/crds,
// whose openAPIV3Schema is applied the way the API server does (defaulting, pruning of unknown fields, validation).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import YAML from 'yaml';

export type KObject = Record<string, any> & { metadata: Record<string, any> };

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** The status subresource: the main endpoint ignores status, /status ignores everything else. */
  statusSubresource: boolean;
  /** metadata.generation is kept and bumped on every change outside metadata and status. */
  generation: boolean;
  /** Backed by a CRD: no update without resourceVersion, no strategic merge patch, list items carry kind. */
  custom: boolean;
  /** Defaults, prunes and checks a whole object in place; returns the field errors (422 Invalid). */
  admit?(obj: KObject, old: KObject | undefined): string[];
}

export const CRD_DIR = fileURLToPath(new URL('../../../charts/strongroom/crds/', import.meta.url));

export function apiVersionOf(t: ResourceType): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** `secrets`, `tenants.strongroom.dev`: how the API server names a resource in messages. */
export function qualifiedName(t: ResourceType): string {
  return t.group ? `${t.plural}.${t.group}` : t.plural;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// metav1.MicroTime is decoded with exactly six fractional digits; anything else fails to decode (400).
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

export class DecodeError extends Error {}

const builtins: ResourceType[] = [
  {
    group: '',
    version: 'v1',
    plural: 'secrets',
    kind: 'Secret',
    namespaced: true,
    statusSubresource: false,
    generation: false,
    custom: false,
    admit(obj) {
      // stringData is write-only: merged into data, never stored or returned.
      const data: Record<string, unknown> = { ...(obj.data ?? {}) };
      for (const [k, v] of Object.entries(obj.stringData ?? {})) data[k] = Buffer.from(String(v)).toString('base64');
      delete obj.stringData;
      for (const [k, v] of Object.entries(data)) {
        if (typeof v !== 'string' || !BASE64.test(v)) throw new DecodeError(`illegal base64 data in data[${JSON.stringify(k)}]`);
      }
      if (Object.keys(data).length > 0) obj.data = data;
      obj.type ??= 'Opaque';
      return [];
    },
  },
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, statusSubresource: false, generation: false, custom: false },
  {
    group: '',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    statusSubresource: false,
    generation: false,
    custom: false,
    admit(obj) {
      const errors: string[] = [];
      if (!obj.involvedObject?.name) errors.push('involvedObject.name: Required value');
      if (!obj.reason) errors.push('reason: Required value');
      if (obj.involvedObject?.namespace && obj.involvedObject.namespace !== obj.metadata.namespace) {
        errors.push('involvedObject.namespace: Invalid value: does not match event.namespace');
      }
      return errors;
    },
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    kind: 'Lease',
    namespaced: true,
    statusSubresource: false,
    generation: false,
    custom: false,
    admit(obj) {
      for (const field of ['acquireTime', 'renewTime'] as const) {
        const v = obj.spec?.[field];
        if (v !== undefined && v !== null && !(typeof v === 'string' && MICRO_TIME.test(v))) {
          throw new DecodeError(`parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`);
        }
      }
      const d = obj.spec?.leaseDurationSeconds;
      if (d !== undefined && (!Number.isInteger(d) || d <= 0)) return ['spec.leaseDurationSeconds: Invalid value: must be greater than 0'];
      return [];
    },
  },
];

/** A CRD's openAPIV3Schema made into a JSON schema that prunes like a structural schema does. */
function toPruningSchema(schema: any, root = true): any {
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: any = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k.startsWith('x-kubernetes-')) continue;
    if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, root && p === 'metadata' ? { type: 'object' } : toPruningSchema(s, false)]));
    else if (k === 'items') out.items = toPruningSchema(v, false);
    else if (k === 'nullable') continue;
    else out[k] = v;
  }
  if (schema.nullable && out.type) out.type = [out.type, 'null'];
  if (out.type === 'object' && out.properties && !schema['x-kubernetes-preserve-unknown-fields'] && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

/** Paths (dotted) of fields with `x-kubernetes-validations: [{rule: "self == oldSelf"}]`: the one CEL rule the double runs. */
function immutablePaths(schema: any, path: string[] = []): { path: string[]; message: string }[] {
  const rules: { rule?: string; message?: string }[] = schema?.['x-kubernetes-validations'] ?? [];
  const here = rules.filter((r) => r.rule?.replace(/\s+/g, '') === 'self==oldSelf').map((r) => ({ path, message: r.message ?? 'failed rule: self == oldSelf' }));
  const nested = Object.entries(schema?.properties ?? {}).flatMap(([k, s]) => immutablePaths(s, [...path, k]));
  return [...here, ...nested];
}

/** Keys of `x-kubernetes-list-type: map` lists must be unique, as the API server enforces. */
function listMapErrors(schema: any, value: any, path: string): string[] {
  if (value === undefined || value === null || typeof schema !== 'object') return [];
  if (schema.type === 'array' && Array.isArray(value)) {
    const errors: string[] = [];
    if (schema['x-kubernetes-list-type'] === 'map') {
      const seen = new Set<string>();
      for (const item of value) {
        const key = JSON.stringify((schema['x-kubernetes-list-map-keys'] ?? []).map((k: string) => item?.[k]));
        if (seen.has(key)) errors.push(`${path}: Duplicate value: ${key}`);
        seen.add(key);
      }
    }
    value.forEach((item: unknown, i: number) => errors.push(...listMapErrors(schema.items, item, `${path}[${i}]`)));
    return errors;
  }
  if (schema.type === 'object' && typeof value === 'object') {
    return Object.entries(schema.properties ?? {}).flatMap(([k, s]) => listMapErrors(s, value[k], path ? `${path}.${k}` : k));
  }
  return [];
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export function loadCrdTypes(dir = CRD_DIR): ResourceType[] {
  const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true, removeAdditional: true });
  ajv.addFormat('date-time', DATE_TIME);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
  const types: ResourceType[] = [];
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    const crd = YAML.parse(readFileSync(join(dir, file), 'utf8'));
    for (const v of crd.spec.versions.filter((x: any) => x.served)) {
      const schema = v.schema.openAPIV3Schema;
      const validate: ValidateFunction = ajv.compile(toPruningSchema(schema));
      const immutable = immutablePaths(schema);
      types.push({
        group: crd.spec.group,
        version: v.name,
        plural: crd.spec.names.plural,
        kind: crd.spec.names.kind,
        namespaced: crd.spec.scope === 'Namespaced',
        statusSubresource: Boolean(v.subresources?.status),
        generation: true,
        custom: true,
        admit(obj, old) {
          const errors: string[] = [];
          if (!validate(obj)) {
            for (const e of validate.errors ?? []) {
              const field = e.instancePath.slice(1).replace(/\//g, '.') || '<root>';
              errors.push(`${field}: Invalid value: ${e.message}`);
            }
          }
          errors.push(...listMapErrors(schema, obj, ''));
          if (old) {
            for (const { path, message } of immutable) {
              const before = path.reduce((o: any, k) => o?.[k], old);
              const after = path.reduce((o: any, k) => o?.[k], obj);
              if (before !== undefined && JSON.stringify(before) !== JSON.stringify(after)) errors.push(`${path.join('.')}: Invalid value: ${message}`);
            }
          }
          return errors;
        },
      });
    }
  }
  return types;
}

export function defaultTypes(): ResourceType[] {
  return [...builtins, ...loadCrdTypes()];
}
