// The field paths a patch reads, as the read check judges them: a pointer's array indexes stand for the array.
import { describe, expect, it } from 'vitest';
import { fieldOfPointer, patchReads } from '../../../../api/ops/profile-reads.js';

describe('fieldOfPointer', () => {
  it('drops indexes and `-`, unescapes ~0 and ~1, and names the whole profile for ""', () => {
    expect(fieldOfPointer('')).toBe('');
    expect(fieldOfPointer('/addresses/0/city')).toBe('addresses.city');
    expect(fieldOfPointer('/tags/-')).toBe('tags');
    expect(fieldOfPointer('/a~1b/c~0d')).toBe('a/b.c~d');
  });
});

describe('patchReads', () => {
  it('are the tests’ paths and the copies’ and moves’ `from`, never what is only written', () => {
    expect(
      patchReads([
        { op: 'test', path: '/a' },
        { op: 'copy', from: '/b/0', path: '/c' },
        { op: 'move', from: '/d', path: '/e' },
        { op: 'add', path: '/f' },
        { op: 'replace', path: '/g' },
        { op: 'remove', path: '/h' },
      ]),
    ).toEqual(['a', 'b', 'd']);
  });
});
