// The architecture's arrows hold: http → ops → vault → store | tokenizer-client, errors and metrics usable from every
// layer, the api apart from the tokenizer, the operator a pure HTTP client. Reads every source file's imports.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Where a file sits: a layer of the api, or a whole program. */
function placeOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'api') return parts[0]!;
  if (parts.length === 2) {
    const name = parts[1]!.replace(/\.ts$/, '');
    // The tokenizer client and its parts (tokenizer-batch, tokenizer-stream) are one layer.
    return name.startsWith('tokenizer-') ? 'tokenizer-client' : `api/${name}`;
  }
  return parts[1]!;
}

/** The lower a rank, the deeper the layer; a file may reach its own rank and deeper ones only. */
const RANK: Record<string, number> = {
  'api/errors': 0,
  'api/metrics': 0,
  'api/config': 0,
  'api/config-oidc': 0,
  'api/config-events': 0,
  'api/config-audit-sinks': 0,
  'api/coalesce': 0,
  'api/compile': 0,
  store: 1,
  'tokenizer-client': 1,
  vault: 2,
  ops: 3,
  http: 4,
  'api/compose': 5,
  'api/main': 6,
  'api/supervisor': 6,
  'api/build': 6,
  'api/audit-verify': 6,
  'api/upgrade-complete': 6,
  'api/config-docs': 6,
};

/** The reasons an import points the wrong way (none when it is fine). */
export function violations(imp: Import): string[] {
  const from = placeOf(imp.from);
  const to = placeOf(imp.to);
  const out: string[] = [];
  const program = (p: string) => (p.startsWith('api/') || p in RANK ? 'api' : p);
  const fromProgram = program(from);
  const toProgram = program(to);
  if (fromProgram === 'api' && toProgram === 'tokenizer') out.push('the api imports nothing from tokenizer/ (shared code lives in proto/)');
  if (fromProgram === 'tokenizer' && (toProgram === 'api' || toProgram === 'operator')) out.push('the tokenizer imports nothing from the api or the operator');
  if (fromProgram === 'operator' && toProgram !== 'operator') out.push('the operator is an HTTP client of the api: it imports nothing from api/, tokenizer/ or proto/');
  if (fromProgram === 'proto' && toProgram !== 'proto') out.push('proto/ is shared by both processes and imports neither');
  if (fromProgram === 'api' && toProgram === 'api') {
    const a = RANK[from];
    const b = RANK[to];
    if (a === undefined) out.push(`${imp.from} sits in no known layer`);
    else if (b === undefined) out.push(`${imp.to} sits in no known layer`);
    else if (b > a && !(from === 'store' && to === 'vault' && imp.typeOnly)) out.push(`${from} must not import ${to} (the arrow points up)`);
  }
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

const SPECIFIER = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: Import[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[3] ?? m[4]!;
    if (!spec.startsWith('.')) continue;
    const target = relative(root, resolve(root, dirname(file), spec)).replace(/\.js$/, '.ts');
    out.push({ from: file, to: target, typeOnly: Boolean(m[2]) });
  }
  return out;
}

describe('layers', () => {
  const files = ['api', 'tokenizer', 'proto', 'operator'].flatMap(sources);

  it('finds the sources and their imports', () => {
    expect(files.length).toBeGreaterThan(150);
    expect(files.flatMap(importsOf).length).toBeGreaterThan(500);
  });

  it('has no arrow pointing the wrong way', () => {
    const wrong = files.flatMap(importsOf).flatMap((imp) => violations(imp).map((why) => `${imp.from} → ${imp.to}: ${why}`));
    expect(wrong).toEqual([]);
  });

  it('catches a wrong arrow of each kind', () => {
    const cases: [string, string, boolean][] = [
      ['api/vault/users.ts', 'api/http/v2.ts', false],
      ['api/store/users.ts', 'api/vault/users.ts', false],
      ['api/store/users.ts', 'api/ops/define.ts', true],
      ['api/ops/users/UserGet.ts', 'api/http/server.ts', false],
      ['api/vault/tokens.ts', 'tokenizer/formats.ts', false],
      ['api/errors.ts', 'api/vault/users.ts', false],
      ['tokenizer/server.ts', 'api/errors.ts', false],
      ['operator/vault-client.ts', 'api/errors.ts', true],
      ['proto/loader.ts', 'tokenizer/keyring.ts', false],
    ];
    for (const [from, to, typeOnly] of cases) expect(violations({ from, to, typeOnly }), `${from} → ${to}`).not.toEqual([]);
    expect(violations({ from: 'api/store/users.ts', to: 'api/vault/identities.ts', typeOnly: true })).toEqual([]);
    expect(violations({ from: 'api/http/v2.ts', to: 'api/ops/execute.ts', typeOnly: false })).toEqual([]);
  });

  // Every statement is in api/store/ (the auditor's command's included: store/auditor.ts), where its tenant and
  // columns are known; elsewhere a statement would be one nobody finds when a table changes.
  it('has no SQL statement outside api/store/', () => {
    const statement = /`\s*(select\s[^`]*\sfrom\s|insert into\s|delete from\s|update\s+\S+\s+set\s|analyze\s|grant\s|revoke\s|create (table|schema|role|function)\s|drop (table|schema|role)\s|do \$\$)/i;
    const outside = files.filter((f) => f.startsWith('api/') && !f.startsWith('api/store/'));
    expect(outside.filter((f) => statement.test(readFileSync(join(root, f), 'utf8')))).toEqual([]);
    expect(statement.test('query(`select seq from ${schema}.audit_head`)')).toBe(true);
  });

  // Services are wired at construction (vault/events.ts for what one announces and others act on): a callback
  // assigned to a built service is wiring nobody finds where they look.
  it('assigns no callback to a service or a context after it is built', () => {
    const assigned = /^\s*[\w.]+\.(on[A-Z]\w*|skip)\s*=(?!=)|^\s*(?!this\.)[A-Za-z_][\w.]*\.\w+\s*=\s*(async\s*)?(\([^()]*\)|\w+)\s*=>/m;
    const api = files.filter((f) => f.startsWith('api/'));
    expect(api.filter((f) => assigned.test(readFileSync(join(root, f), 'utf8')))).toEqual([]);
    expect(assigned.test('  users.onRemove = (scope) => undefined;')).toBe(true);
    expect(assigned.test('  tokenizer.saltSource = (tenantId) => salts(tenantId);')).toBe(true);
    expect(assigned.test('    ctx.auditFinal = () => {')).toBe(true);
    expect(assigned.test('    state.done = (async () => {')).toBe(false);
  });

  // A file that grows past this holds more than one idea: split it by what each part owns.
  it('has no source file in api/, tokenizer/ or operator/ over 350 lines', () => {
    const long = files
      .filter((f) => /^(api|tokenizer|operator)\//.test(f))
      .map((f) => [f, readFileSync(join(root, f), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 350);
    expect(long).toEqual([]);
  });

  // An operation reaches the database and the tokenizer only through the vault's services: the pipeline that runs
  // it (execute.ts: its transaction, the tokenizer's tenant salt) is the one file of ops/ that holds them.
  it('has no operation that reaches services.db or services.tokenizer', () => {
    const reach = /\bservices\.(db|tokenizer)\b/;
    const ops = files.filter((f) => f.startsWith('api/ops/') && f !== 'api/ops/execute.ts');
    expect(ops.length).toBeGreaterThan(100);
    const wrong = ops.filter((f) => reach.test(readFileSync(join(root, f), 'utf8')));
    expect(wrong).toEqual([]);
    expect(reach.test('await ctx.services.tokenizer.rotate()')).toBe(true);
  });

  // One data handle (store/sql.ts's `Sql`: the pool, our own transaction, a held connection) and one transaction
  // style: the Database makes every store (`stores`, `global`, `write`, `writeGlobal`), and nothing chooses a
  // connection by looking an object up in a registry.
  it('reaches the database only through the stores the Database makes', () => {
    const read = (f: string) => readFileSync(join(root, f), 'utf8');
    const elsewhere = /\bEntityManager\b|\.transactional\(|\bnew (Global)?Stores\(|\bstoresOf\b|from 'kysely'|\bctx\.em\b/;
    const outside = files.filter((f) => f.startsWith('api/') && !f.startsWith('api/store/'));
    expect(outside.filter((f) => elsewhere.test(read(f)))).toEqual([]);
    const registry = /^(const|let) \w+ = new WeakMap|\.transactional\(|from 'kysely'/m;
    expect(files.filter((f) => f.startsWith('api/store/') && registry.test(read(f)))).toEqual([]);
    expect(elsewhere.test('const s = new Stores(em, 1);')).toBe(true);
    expect(registry.test('const owned = new WeakMap<object, number>();')).toBe(true);
  });

  // Unwrapped data keys live in the cache the tokenizer's service owns and zeroes on close (data-key-cache.ts).
  it('keeps no module-level key cache in the tokenizer', () => {
    const moduleCache = /^(const|let) \w+ = new LRUCache/m;
    expect(files.filter((f) => f.startsWith('tokenizer/') && moduleCache.test(readFileSync(join(root, f), 'utf8')))).toEqual([]);
  });
});
