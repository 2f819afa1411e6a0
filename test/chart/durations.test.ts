// The Role CRD's durations follow the vault's one grammar: whatever the CRD admits the operator reads as the API
// does (`m` a month, `min` minutes), and its default margin is spelt in minutes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseDuration } from '../../operator/types/duration.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const crd = YAML.parse(readFileSync(`${root}charts/strongroom/crds/roles.strongroom.dev.yaml`, 'utf8'));
const xtoken = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.xtoken.properties;
const table = JSON.parse(readFileSync(`${root}test/fixtures/durations.json`, 'utf8')) as { cases: [string, number | null][] };

describe('the Role CRD\'s durations', () => {
  const fields = ['lifetime', 'rotateBefore'] as const;

  it('admits only what the operator reads, with the seconds of the shared table', () => {
    for (const field of fields) {
      const pattern = new RegExp(xtoken[field].pattern);
      for (const [text, seconds] of table.cases) {
        if (!pattern.test(text)) continue;
        expect(parseDuration(text) ?? null, `${field} ${text}`).toBe(seconds);
        // A pattern cannot bound the number: the one refusal it admits is past 200 years (the operator's schema says so).
        if (seconds === null) expect(parseDuration(text.replace(/^\d+/, '1')), text).toBeDefined();
      }
      // Every unit of the grammar, spelt as the CRD admits it.
      for (const text of ['90s', '30min', '2h', '7d', '1m', '1mo', '1y']) expect(pattern.test(text), text).toBe(true);
      fc.assert(fc.property(fc.stringMatching(pattern), (text) => {
        if (parseDuration(text) === undefined) expect(parseDuration(text.replace(/^\d+/, '1')), text).toBeDefined();
      }));
    }
  });

  it('defaults to an hour\'s lifetime and a ten-minute margin, and names min and m in its descriptions', () => {
    expect(parseDuration(xtoken.lifetime.default)).toBe(3600);
    expect(parseDuration(xtoken.rotateBefore.default)).toBe(600);
    expect(xtoken.lifetime.description).toMatch(/min \(minutes\)/);
    expect(xtoken.lifetime.description).toMatch(/m is a month/);
  });
});
