// The operator is a pure HTTP client of the vault: nothing under operator/ may import from api/, tokenizer/ or
// anything else outside it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const OPERATOR = fileURLToPath(new URL('../../../operator/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative imports of a file (static, re-exports, dynamic) that lead out of operator/. */
function importsOutside(file: string, text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)]
    .map((m) => m[1]!)
    .filter((s) => s.startsWith('.') && relative(OPERATOR, resolve(dirname(file), s)).startsWith('..'));
}

describe('the operator', () => {
  it('imports nothing from outside operator/ but packages', () => {
    const files = sources(OPERATOR);
    expect(files.length).toBeGreaterThan(10);
    const outside = files.flatMap((file) => importsOutside(file, readFileSync(file, 'utf8')).map((s) => `${relative(OPERATOR, file)}: ${s}`));
    expect(outside).toEqual([]);
  });

  it('sees a relative import that leaves operator/ (the check above can fail)', () => {
    const file = join(OPERATOR, 'runtime', 'controller.ts');
    const text = "import { VaultError } from '../../api/errors.js';\nimport '../../tokenizer/aead.js';\nconst kube = await import('../kube.js');";
    expect(importsOutside(file, text)).toEqual(['../../api/errors.js', '../../tokenizer/aead.js']);
  });
});
