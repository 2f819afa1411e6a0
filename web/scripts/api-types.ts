// Turns the OpenAPI document's request schemas into TypeScript types for the pages (web/src/api/requests.gen.ts).
// openapi-typescript needs TypeScript 5's compiler API, which TypeScript 7 does not have; the schemas zod emits use
// a small part of JSON Schema, and that part is what this covers. Anything else becomes `unknown`.
type Schema = Record<string, unknown>;

const ident = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function literal(value: unknown): string {
  return JSON.stringify(value);
}

export function typeOf(schema: unknown, indent = ''): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  const s = schema as Schema;
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(literal).join(' | ');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (Array.isArray(options)) return [...new Set(options.map((o) => typeOf(o, indent)))].join(' | ');
  }
  if (Array.isArray(s.allOf)) return s.allOf.map((o) => typeOf(o, indent)).join(' & ');
  if (Array.isArray(s.type)) return s.type.map((t) => typeOf({ ...s, type: t }, indent)).join(' | ');
  switch (s.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (Array.isArray(s.prefixItems)) return `[${s.prefixItems.map((i) => typeOf(i, indent)).join(', ')}]`;
      const item = typeOf(s.items, indent);
      return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required ?? []) as string[]);
      const inner = `${indent}  `;
      const lines = Object.entries(props).map(([name, p]) => {
        const key = ident.test(name) ? name : literal(name);
        return `${inner}${key}${required.has(name) ? '' : '?'}: ${typeOf(p, inner)};`;
      });
      const extra = s.additionalProperties;
      if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: ${extra === true ? 'unknown' : 'unknown'};`);
      if (!lines.length) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    default:
      return 'unknown';
  }
}

/** The module's text: one request type per operation, and the map from operation name to it. */
export function renderRequestTypes(doc: Schema): string {
  const paths = doc.paths as Record<string, { post?: { operationId: string; requestBody: { content: { 'application/json': { schema: unknown } } } } }>;
  // The /v2 operations only (the probes beside them are GETs).
  const ops = Object.values(paths).flatMap((p) => (p.post ? [p.post] : [])).sort((a, b) => a.operationId.localeCompare(b.operationId));
  const out = [
    '// Generated from the OpenAPI document (/openapi.json) by web/scripts/gen-api-types.ts: do not edit.',
    '// test/browser/openapi.test.ts fails when it is out of date; run `npx tsx web/scripts/gen-api-types.ts`.',
    '',
  ];
  for (const op of ops) out.push(`export type ${op.operationId}Input = ${typeOf(op.requestBody.content['application/json'].schema)};`, '');
  out.push('export interface Requests {');
  for (const op of ops) out.push(`  ${op.operationId}: ${op.operationId}Input;`);
  out.push('}', '', 'export type OperationName = keyof Requests;', '');
  // The names at run time too, for the pages' pickers (an operation to explain, to allow in a policy).
  out.push('export const OPERATION_NAMES: readonly OperationName[] = [');
  for (const op of ops) out.push(`  '${op.operationId}',`);
  out.push('];', '');
  return out.join('\n');
}
