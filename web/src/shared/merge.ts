// RFC 7396 merge patches: the patch that turns one profile into another, and applying one to show its effect.
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The merge patch that turns `from` into `to` (null removes a field). */
export function mergePatchBetween(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return to;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) if (!(key in to)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    if (!(key in from)) patch[key] = value;
    else if (JSON.stringify(from[key]) !== JSON.stringify(value)) patch[key] = isObject(from[key]) && isObject(value) ? mergePatchBetween(from[key], value) : value;
  }
  return patch;
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}
