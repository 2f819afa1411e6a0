// Operations that read profile values to do their work read them for the caller: a patch's test, copy and move
// (`from`), a share's fields. They may read only what the caller's UserGet would show whole, so a field a Deny of
// UserGet hides cannot be confirmed by a test, copied into sight, or shared with a partner either; and a patch's
// errors (a path that does not exist, an index out of range) say nothing about what that UserGet hides.
import type { OpContext } from './define.js';
import { forbidden, Messages } from '../errors.js';
import { addsBlind, readsWhole } from '../vault/policy-mask.js';
import type { FieldGrant } from '../vault/policy.js';
import { UserGet } from './users/UserGet.js';

const tokensOf = (pointer: string) => (pointer === '' ? [] : pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')));
const isIndex = (token: string) => token === '-' || /^[0-9]+$/.test(token);
const fieldOf = (tokens: readonly string[]) => tokens.filter((t) => !isIndex(t)).join('.');

/** The field path a JSON Pointer names: array indexes (and `-`) left out, as field paths apply through arrays. */
export function fieldOfPointer(pointer: string): string {
  return fieldOf(tokensOf(pointer));
}

/** 403 `API access denied` unless the caller's UserGet would show each field path (dotted; `''` the whole profile) whole. */
export async function mayRead(ctx: OpContext, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const grant = await ctx.gate.also(UserGet);
  if (!paths.every((p) => readsWhole(grant, p))) throw forbidden(Messages.apiDenied);
}

/**
 * Whether a patch operation's answer (applied, or failing with its message) can tell nothing about the profile
 * values a grant hides. Every pointer it follows must lie outside what the grant does not show whole, and contain
 * none of it: a `replace` or `remove` there would say whether the field exists, an index into a hidden array how
 * long it is, a pointer through a hidden object its shape. An `add` (and a copy's or move's target) may name a
 * field hidden whole in a shown parent: that write succeeds whatever is hidden (writes stay the operation's grant).
 */
export function patchOpBlind(grant: FieldGrant, o: { op: string; path: string; from?: string | undefined }): boolean {
  if (o.from !== undefined && (o.op === 'copy' || o.op === 'move') && !readsWhole(grant, fieldOfPointer(o.from))) return false;
  const tokens = tokensOf(o.path);
  if (readsWhole(grant, fieldOf(tokens))) return true;
  const adds = o.op === 'add' || o.op === 'copy' || o.op === 'move';
  const last = tokens.at(-1);
  return adds && last !== undefined && !isIndex(last) && addsBlind(grant, fieldOf(tokens.slice(0, -1)), fieldOf(tokens));
}

/**
 * 403 `API access denied`, before anything is applied or tested, unless every operation of the patch reads only what
 * the caller's UserGet shows whole and writes where its answer can tell nothing of what that UserGet hides.
 */
export async function mayPatch(ctx: OpContext, patch: readonly { op: string; path: string; from?: string | undefined }[]): Promise<void> {
  const grant = await ctx.gate.also(UserGet);
  if (!patch.every((o) => patchOpBlind(grant, o))) throw forbidden(Messages.apiDenied);
}
