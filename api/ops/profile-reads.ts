// Operations that read profile values to do their work read them for the caller: a patch's test, copy and move
// (`from`), a share's fields. They may read only what the caller's UserGet would show whole, so a field a Deny of
// UserGet hides cannot be confirmed by a test, copied into sight, or shared with a partner either.
import type { OpContext } from './define.js';
import { forbidden, Messages } from '../errors.js';
import { readsWhole } from '../vault/policy-mask.js';
import { UserGet } from './users/UserGet.js';

/** The field path a JSON Pointer names: array indexes (and `-`) left out, as field paths apply through arrays. */
export function fieldOfPointer(pointer: string): string {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/');
  return tokens
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .filter((t) => t !== '-' && !/^[0-9]+$/.test(t))
    .join('.');
}

/** 403 `API access denied` unless the caller's UserGet would show each field path (dotted; `''` the whole profile) whole. */
export async function mayRead(ctx: OpContext, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const grant = await ctx.gate.also(UserGet);
  if (!paths.every((p) => readsWhole(grant, p))) throw forbidden(Messages.apiDenied);
}

/** The fields a patch reads: each test's `path`, each copy's and move's `from`. */
export function patchReads(patch: readonly { op: string; path: string; from?: string | undefined }[]): string[] {
  return patch.flatMap((o) => (o.op === 'test' ? [o.path] : (o.op === 'copy' || o.op === 'move') && o.from !== undefined ? [o.from] : [])).map(fieldOfPointer);
}
