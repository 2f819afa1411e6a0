// The configuration reference (docs/configuration.md) is generated from the settings' declarations and kept in
// step with them: every api setting has a meaning, a shown default that parses to the real default, and the
// tokenizer's own settings are exactly those its sources read. A stale file fails here: `npm run gen:config-docs`.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_SETTINGS } from '../../../api/config.js';
import { apiSettingDocs, configurationReference, DOC_FILE, withReference } from '../../../api/config-docs.js';
import { TOKENIZER_SETTINGS } from '../../../proto/tokenizer-settings.js';

const root = join(DOC_FILE, '../..');

describe('the configuration reference', () => {
  it('is what the declarations generate (run npm run gen:config-docs when this fails)', () => {
    const text = readFileSync(DOC_FILE, 'utf8');
    expect(text).toContain(configurationReference());
    expect(withReference(text)).toBe(text);
  });

  it('gives every api setting a meaning, and a shown default that means the real one', () => {
    const docs = apiSettingDocs();
    expect(docs.length).toBe(Object.keys(API_SETTINGS.shape).length);
    expect(docs.filter((d) => d.description.trim().length < 10).map((d) => d.name)).toEqual([]);
    for (const [name, field] of Object.entries(API_SETTINGS.shape)) {
      const f = field as unknown as { def: { type: string }; meta(): { shown?: string } | undefined; parse(v: unknown): unknown };
      const shown = f.meta()?.shown;
      // A default shown by hand (`2mb` for a byte count) must parse to the default the schema applies.
      if (f.def.type === 'default' && shown?.startsWith('`')) {
        const text = /^`([^`]*)`/.exec(shown)![1]!;
        expect(f.parse(text), name).toEqual(f.parse(undefined));
      }
    }
  });

  it('declares exactly the tokenizer settings its sources read, beside those it shares with the api', () => {
    const shared = new Set(Object.keys(API_SETTINGS.shape));
    const read = new Set(
      readdirSync(join(root, 'tokenizer'))
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) => readFileSync(join(root, 'tokenizer', f), 'utf8').match(/STRONGROOM_[A-Z0-9_]+/g) ?? [])
        .filter((name) => !shared.has(name)),
    );
    expect(TOKENIZER_SETTINGS.map((s) => s.name).sort()).toEqual([...read].sort());
  });
});
