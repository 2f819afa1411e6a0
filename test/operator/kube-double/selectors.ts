// Label and field selectors as the API server parses them from `labelSelector` and `fieldSelector`.
import type { KObject } from './resources.js';
import { ApiError, type Selector } from './store.js';

type Test = (obj: KObject) => boolean;

const everything: Selector = { matches: () => true };

function labelTest(term: string): Test {
  let m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (m) {
    const values = m[3]!.split(',').map((v) => v.trim());
    const key = m[1]!;
    return m[2] === 'in'
      ? (o) => values.includes(o.metadata.labels?.[key])
      : (o) => !values.includes(o.metadata.labels?.[key]);
  }
  m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(term);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (o) => o.metadata.labels?.[key] !== value : (o) => o.metadata.labels?.[key] === value;
  }
  m = /^(!?)([\w./-]+)$/.exec(term);
  if (m) {
    const key = m[2]!;
    return m[1] ? (o) => !(key in (o.metadata.labels ?? {})) : (o) => key in (o.metadata.labels ?? {});
  }
  throw new ApiError(400, 'BadRequest', `unable to parse requirement: ${JSON.stringify(term)}`);
}

/** Splits on commas outside parentheses. */
function terms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const FIELDS: Record<string, (o: KObject) => string | undefined> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace,
  type: (o) => o.type,
};

function fieldTest(term: string): Test {
  const m = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (!m) throw new ApiError(400, 'BadRequest', `invalid field selector: ${JSON.stringify(term)}`);
  const [, field, op, value] = m as unknown as [string, string, string, string];
  const get = FIELDS[field];
  if (!get) throw new ApiError(400, 'BadRequest', `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
  return op === '!=' ? (o) => get(o) !== value : (o) => get(o) === value;
}

export function parseSelectors(labelSelector: string | null, fieldSelector: string | null): Selector {
  const tests = [...terms(labelSelector ?? '').map(labelTest), ...terms(fieldSelector ?? '').map(fieldTest)];
  if (tests.length === 0) return everything;
  return { matches: (o) => tests.every((t) => t(o)) };
}
