// A field-by-field comparison of two JSON values, for versions and requested changes.
export interface Change {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function diffJson(before: unknown, after: unknown, path = ''): Change[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => {
      const at = path ? `${path}.${key}` : key;
      if (!(key in before)) return [{ path: at, kind: 'added' as const, after: after[key] }];
      if (!(key in after)) return [{ path: at, kind: 'removed' as const, before: before[key] }];
      return diffJson(before[key], after[key], at);
    });
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path: path || '(whole value)', kind: 'changed', before, after }];
}
