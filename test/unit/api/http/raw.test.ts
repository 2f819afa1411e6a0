// The Content-Disposition header of a raw file download.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { contentDisposition } from '../../../../api/http/raw.js';

describe('contentDisposition', () => {
  it('is always a single-line ASCII header whose filename* decodes to the name with path separators replaced', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }), (name) => {
        const header = contentDisposition(name);
        expect(header).toMatch(/^[\x20-\x7e]+$/);
        const m = /^attachment; filename="([^"]*)"; filename\*=UTF-8''(.+)$/.exec(header);
        expect(m).not.toBeNull();
        expect(decodeURIComponent(m![2]!)).toBe(name.replace(/[/\\]/g, '_'));
      }),
    );
  });
});
