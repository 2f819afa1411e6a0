// The registry of wire operations (api/ops/index.ts) against the operation files and the contract: every file
// `api/ops/<area>/<Op>.ts` is registered under its own name, the list is sorted and unique, and the /v2
// operations are exactly the contract's plus the extras the README's guides (docs/) document. v1 (files in api/ops/v1, or named
// in lower case) is not a /v2 operation and stays out of the comparison with the contract.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../../api/ops/index.js';
import type { OpDefinition } from '../../../../api/ops/define.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const opsDir = join(root, 'api/ops');
// The contract's operation names, kept in the repository (no test reads outside it).
const contractPath = join(root, 'test/fixtures/contract-operations.txt');

/** Operations the official SDKs call beyond the published description. */
const SDK_EXTRAS = [
  'BulkListFilesByTag',
  'CaptchaCreate',
  'FileReplaceTags',
  'SystemSetLicenseKey',
  'TenantDelete',
  'TenantGetUIConf',
  'UserDeleteBulk',
  'UserLogin',
  'UserPrelogin',
];
/** Operations of our own, so what is made can be removed and a lost tenant admin token replaced. */
/* One name a line, so that operations added side by side merge. */
const OUR_OWN = [
  'ErasureConfirm',
  'ErasureReceiptGet',
  'ErasureStatusGet',
  'EventDeliveryList',
  'EventReplay',
  'EventSubscriptionCreate',
  'EventSubscriptionDelete',
  'EventSubscriptionList',
  'EventSubscriptionTest',
  'EventSubscriptionUpdate',
  'AuditVerify',
  'AuditProveEvents',
  'PolicyDelete',
  'PolicyExplain',
  'RoleDelete',
  'RoleGet',
  'RoleListAllRoles',
  'RoleUnlinkPolicy',
  'SharedRecordDelete',
  'SharedRecordListUserRecords',
  'SystemGetKeyringStatus',
  'SystemGetOverview',
  'SystemResplitRecoveryKey',
  'SystemRotateMasterKey',
  'TenantRevokeKek',
  'TenantRotateAdminToken',
  'UserLogout',
  'XTokenListForRole',
  'XTokenListForUser',
  'XTokenRevoke',
];
const EXTRAS = [...SDK_EXTRAS, ...OUR_OWN];

function isOpDefinition(value: unknown): value is OpDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.name === 'string' && typeof v.access === 'string' && typeof v.transaction === 'string' && typeof v.run === 'function' && typeof v.input === 'object';
}

/** Every .ts file under a directory, as paths relative to api/ops. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [relative(opsDir, path)] : [];
  });
}

/** A /v2 operation file: `<area>/<Op>.ts`, the area not v1, the name starting with a capital. */
function isV2OperationFile(file: string): boolean {
  const parts = file.split(/[\\/]/);
  return parts.length === 2 && parts[0] !== 'v1' && /^[A-Z]\w*\.ts$/.test(parts[1]!);
}

/** The operation definitions each file under api/ops exports. */
async function exportsByFile(): Promise<Map<string, OpDefinition[]>> {
  const out = new Map<string, OpDefinition[]>();
  for (const file of tsFiles(opsDir)) {
    const mod = (await import(pathToFileURL(join(opsDir, file)).href)) as Record<string, unknown>;
    out.set(file, [...new Set(Object.values(mod).filter(isOpDefinition))]);
  }
  return out;
}

function contractOperations(): string[] {
  return readFileSync(contractPath, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

describe('the operation registry', () => {
  const names = operations.map((op) => op.name);

  it('lists each operation once, sorted by name', () => {
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...names].sort());
  });

  it('registers every operation file, each exporting one operation named exactly like the file', async () => {
    const files = await exportsByFile();
    const v2Files = [...files.keys()].filter(isV2OperationFile);
    expect(v2Files.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const file of v2Files) {
      const defs = files.get(file)!;
      const expectedName = basename(file, '.ts');
      if (defs.length !== 1) wrong.push(`${file}: exports ${defs.length} operations`);
      for (const def of defs) {
        if (def.name !== expectedName) wrong.push(`${file}: named ${def.name}`);
        if (!operations.includes(def)) wrong.push(`${file}: not in api/ops/index.ts`);
      }
    }
    expect(wrong).toEqual([]);
    // And nothing is registered that no file under api/ops defines.
    const defined = new Set([...files.values()].flat());
    expect(operations.filter((op) => !defined.has(op)).map((op) => op.name)).toEqual([]);
  });

  it('serves exactly the contract’s /v2 operations plus the documented extras', async () => {
    const files = await exportsByFile();
    const v2 = new Set([...files].filter(([file]) => isV2OperationFile(file)).flatMap(([, defs]) => defs));
    const served = operations.filter((op) => v2.has(op)).map((op) => op.name);
    const contract = contractOperations();
    expect(contract.length).toBeGreaterThan(0);
    expect(contract.filter((name) => EXTRAS.includes(name))).toEqual([]);
    // A new operation beyond the contract is documented in docs/api.md and listed above (OUR_OWN), on purpose.
    const expected = new Set([...contract, ...EXTRAS]);
    expect({
      servedBeyondContractAndExtras: served.filter((name) => !expected.has(name)),
      expectedButNotServed: [...expected].filter((name) => !served.includes(name)),
    }).toEqual({ servedBeyondContractAndExtras: [], expectedButNotServed: [] });
  });

  it('has every extra documented in the README or its guides (docs/)', () => {
    const guides = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
    const readme = ['README.md', ...guides].map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
    expect(EXTRAS.filter((name) => !new RegExp(`\\b${name}\\b`).test(readme))).toEqual([]);
  });
});
