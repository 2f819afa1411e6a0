// RFC 6902 JSON Patch of a profile, as UserPatch applies it and an approved UserPatchRequest replays it.
import jsonPatch from 'fast-json-patch';
import { badRequest } from '../errors.js';

/** Operations per patch: enough for any edit a person makes, too few to build a large document from a small one. */
export const MAX_PATCH_OPERATIONS = 100;

/**
 * Applies the patch to a copy; a failing operation or a non-object result is the client's 400. A `copy` or `move`
 * from an ancestor of its target (which doubles the document: `{"op":"copy","from":"","path":"/a"}`) is refused,
 * and so is a patch of more than MAX_PATCH_OPERATIONS operations. The result's size is bounded where it is sealed.
 */
export function applyProfilePatch(profile: Record<string, unknown>, patch: jsonPatch.Operation[]): Record<string, unknown> {
  if (patch.length > MAX_PATCH_OPERATIONS) throw badRequest(`Invalid API request parameter: patch: at most ${MAX_PATCH_OPERATIONS} operations`);
  patch.forEach((op, i) => {
    if ((op.op === 'copy' || op.op === 'move') && (op.path === op.from || op.path.startsWith(`${op.from}/`))) {
      throw badRequest(`Invalid API request parameter: patch[${i}]: ${op.op} may not take from ${op.from || 'the whole document'} into itself`);
    }
  });
  let next: unknown;
  try {
    next = jsonPatch.applyPatch(structuredClone(profile), patch, true, true, true).newDocument;
  } catch (err) {
    const e = err as { name?: string; index?: number };
    const where = e.index === undefined ? '' : ` at patch[${e.index}]`;
    throw badRequest(`Invalid API request parameter: patch${where}: ${e.name ?? 'cannot be applied'}`);
  }
  if (typeof next !== 'object' || next === null || Array.isArray(next)) {
    throw badRequest('Invalid API request parameter: patch: the profile must remain a JSON object');
  }
  return next as Record<string, unknown>;
}
