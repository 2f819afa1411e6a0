// RFC 6902 JSON Patch of a profile, as UserPatch applies it, UserPatchRequest checks it and its approval replays it.
// The work is bounded, not only the result. A running size total starts at the profile's size as JSON, and every
// operation that brings bytes in (add, replace, copy, and move, which is charged as a copy) adds the size of its
// value before it runs; past the document cap the patch is refused before that operation touches anything. Each
// byte an operation measures, walks or clones is charged so, which bounds a patch's whole work by the cap and its
// own length: two copies that double a branch (`/a → /b`, `/b → /a/x0`) are each charged the branch they copy.
// The size total never goes down (a removal is not credited), so it is an upper bound of the document's size.
import { badRequest } from '../errors.js';
import { MAX_DEPTH, tooDeep } from './documents.js';

/** Operations per patch: enough for any edit a person makes. */
export const MAX_PATCH_OPERATIONS = 100;

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

type Json = unknown;
type Container = Record<string, Json> | Json[];

/** An operation that cannot apply: the client's 400, with the operation's index added by the caller. */
class PatchFailure extends Error {}

/** Where a pointer lands: the container that holds it and the key (or index, or `-`) inside it. */
interface Slot {
  parent: Container;
  key: string;
}

/**
 * The profile with the patch applied, on a copy. A failing operation, a result that is not an object, or a size
 * total past `maxBytes` is the client's 400 naming the operation (`patch[i]`).
 */
export function applyProfilePatch(profile: Record<string, unknown>, patch: PatchOperation[], maxBytes: number): Record<string, unknown> {
  if (patch.length > MAX_PATCH_OPERATIONS) throw badRequest(`Invalid API request parameter: patch: at most ${MAX_PATCH_OPERATIONS} operations`);
  const state = new PatchState(profile, maxBytes);
  patch.forEach((op, i) => {
    try {
      state.apply(op);
    } catch (err) {
      if (err instanceof PatchFailure) throw badRequest(`Invalid API request parameter: patch[${i}]: ${err.message}`);
      throw err;
    }
  });
  const next = state.root;
  if (typeof next !== 'object' || next === null || Array.isArray(next)) {
    throw badRequest('Invalid API request parameter: patch: the profile must remain a JSON object');
  }
  return next as Record<string, unknown>;
}

class PatchState {
  root: Json;
  /** An upper bound of the document's size as JSON: its size at the start plus every byte brought in since. */
  private size: number;

  constructor(
    profile: Record<string, unknown>,
    private readonly maxBytes: number,
  ) {
    const json = JSON.stringify(profile);
    this.size = Buffer.byteLength(json);
    this.root = JSON.parse(json) as Json;
  }

  apply(op: PatchOperation): void {
    switch (op.op) {
      case 'test':
        if (!deepEqual(this.get(op.path), required(op))) throw new PatchFailure(`test failed at ${op.path || 'the whole document'}`);
        return;
      case 'remove':
        this.remove(this.existing(op.path));
        return;
      case 'add':
      case 'replace':
        this.put(op, jsonOf(required(op)));
        return;
      case 'copy':
      case 'move':
        this.copyOrMove(op);
        return;
    }
  }

  private copyOrMove(op: PatchOperation): void {
    if (op.from === undefined) throw new PatchFailure(`${op.op} needs from`);
    if (op.op === 'move' && isProperPrefix(op.from, op.path)) throw new PatchFailure(`move may not take ${op.from || 'the whole document'} into itself`);
    const value = this.get(op.from);
    if (op.op === 'move' && op.from === op.path) return;
    // Measuring is the copy's cost, charged before it is made: what is measured is within the size total already.
    const json = jsonOf(value);
    if (op.op === 'copy') {
      this.put({ op: 'add', path: op.path }, json);
      return;
    }
    this.charge(Buffer.byteLength(json) + Buffer.byteLength(op.path) + 4);
    this.checkDepth(op.path, value);
    this.remove(this.existing(op.from));
    this.put({ op: 'add', path: op.path }, json, value);
  }

  /** An `add` or `replace` of the value whose JSON is `json` (`moved`: the value itself, already in no place). */
  private put(op: PatchOperation, json: string, moved?: Json): void {
    if (op.op === 'replace' && op.path !== '') this.existing(op.path);
    if (moved === undefined) this.charge(Buffer.byteLength(json) + Buffer.byteLength(op.path) + 4);
    const value = moved === undefined ? (JSON.parse(json) as Json) : moved;
    this.checkDepth(op.path, value);
    if (op.path === '') {
      this.root = value;
      return;
    }
    const { parent, key } = this.slot(op.path);
    if (!Array.isArray(parent)) {
      parent[key] = value;
      return;
    }
    if (op.op === 'replace') parent[arrayIndex(key, parent.length - 1, op.path)] = value;
    else if (key === '-') parent.push(value);
    else parent.splice(arrayIndex(key, parent.length, op.path), 0, value);
  }

  private remove(slot: Slot): void {
    if (Array.isArray(slot.parent)) slot.parent.splice(Number(slot.key), 1);
    else delete slot.parent[slot.key];
  }

  /** Adds `bytes` to the size total; a total past the cap refuses the operation before it runs. */
  private charge(bytes: number): void {
    this.size += bytes;
    if (this.size > this.maxBytes) throw new PatchFailure(`the profile would grow past ${this.maxBytes} bytes as JSON`);
  }

  /** A value placed at `path` keeps the document within MAX_DEPTH levels of nesting (objects and arrays). */
  private checkDepth(path: string, value: Json): void {
    const above = path === '' ? 0 : parsePointer(path).length;
    if (typeof value === 'object' && value !== null && (above >= MAX_DEPTH || tooDeep(value, MAX_DEPTH - above) !== null)) {
      throw new PatchFailure(`the profile would be nested deeper than ${MAX_DEPTH} levels`);
    }
  }

  /** The value at `path`; a pointer that resolves to nothing fails. */
  private get(path: string): Json {
    if (path === '') return this.root;
    const { parent, key } = this.existing(path);
    return Array.isArray(parent) ? parent[Number(key)] : parent[key];
  }

  /** The slot of a value that exists. */
  private existing(path: string): Slot {
    if (path === '') throw new PatchFailure('the whole document cannot be removed');
    const slot = this.slot(path);
    const { parent, key } = slot;
    if (Array.isArray(parent)) arrayIndex(key, parent.length - 1, path);
    else if (!Object.hasOwn(parent, key)) throw new PatchFailure(`${path} does not exist`);
    return slot;
  }

  /** The container that holds the last token of `path`, which must itself exist. */
  private slot(path: string): Slot {
    const tokens = parsePointer(path);
    let node: Json = this.root;
    for (let i = 0; i < tokens.length - 1; i++) {
      node = child(node, tokens[i]!, path);
    }
    if (typeof node !== 'object' || node === null) throw new PatchFailure(`${path} does not exist`);
    return { parent: node as Container, key: tokens[tokens.length - 1]! };
  }
}

/** The member `token` of `node`, which must exist. */
function child(node: Json, token: string, path: string): Json {
  if (Array.isArray(node)) return node[arrayIndex(token, node.length - 1, path)];
  if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) throw new PatchFailure(`${path} does not exist`);
  return (node as Record<string, Json>)[token];
}

/** A JSON Pointer's reference tokens (RFC 6901); `__proto__` is refused so no prototype can be reached. */
function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchFailure(`${path} is not a JSON Pointer`);
  return path
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw new PatchFailure(`${path} is not a JSON Pointer`);
      const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
      if (key === '__proto__') throw new PatchFailure(`${path} may not name __proto__`);
      return key;
    });
}

/** An array index token at most `max` (an append's `-` is handled by the caller). */
function arrayIndex(token: string, max: number, path: string): number {
  if (!/^(0|[1-9][0-9]{0,8})$/.test(token) || Number(token) > max) throw new PatchFailure(`${path} is not an index in its array`);
  return Number(token);
}

function isProperPrefix(from: string, path: string): boolean {
  return path.startsWith(`${from}/`);
}

function required(op: PatchOperation): Json {
  if (op.value === undefined) throw new PatchFailure(`${op.op} needs a value`);
  return op.value;
}

function jsonOf(value: Json): string {
  return JSON.stringify(value) ?? 'null';
}

/** JSON equality: same type, same members, arrays in order. Stops at the first difference. */
function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as Json[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ak = Object.keys(a);
  const bo = b as Record<string, Json>;
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => Object.hasOwn(bo, k) && deepEqual((a as Record<string, Json>)[k], bo[k]));
}
