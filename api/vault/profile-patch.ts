// RFC 6902 JSON Patch of a profile, as UserPatch applies it and an approved UserPatchRequest replays it.
import jsonPatch from 'fast-json-patch';
import { badRequest } from '../errors.js';

/** Applies the patch to a copy; a failing operation or a non-object result is the client's 400. */
export function applyProfilePatch(profile: Record<string, unknown>, patch: jsonPatch.Operation[]): Record<string, unknown> {
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
