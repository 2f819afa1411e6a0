// Strict base64 and mimetype sniffing: the parsers of the file operations.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeBase64, sniffMimetype } from '../../../../api/vault/file-content.js';

describe('decodeBase64', () => {
  it('gives back any bytes in standard or URL-safe form, padded or not, with line breaks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const buf = Buffer.from(bytes);
        const std = buf.toString('base64');
        expect(decodeBase64(std)?.equals(buf)).toBe(true);
        expect(decodeBase64(std.replace(/=+$/, ''))?.equals(buf)).toBe(true);
        expect(decodeBase64(buf.toString('base64url'))?.equals(buf)).toBe(true);
        expect(decodeBase64(std.replace(/(.{76})/g, '$1\r\n'))?.equals(buf)).toBe(true);
      }),
    );
  });

  it('refuses characters outside the alphabet, mixed alphabets and impossible lengths', () => {
    for (const bad of ['a', 'abcde', 'ab=c', 'ab===', 'a+b_', '****', 'QQ==QQ==', 'é', 'ab c!']) expect(decodeBase64(bad), bad).toBeUndefined();
  });
});

describe('sniffMimetype', () => {
  it('never calls binary content text, and never guesses markup', async () => {
    expect(await sniffMimetype(Buffer.from('<html><script>x</script></html>'))).toBe('text/plain; charset=utf-8');
    expect(await sniffMimetype(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('text/plain; charset=utf-8');
    expect(await sniffMimetype(Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('text/plain; charset=utf-8');
    expect(await sniffMimetype(Buffer.alloc(0))).toBe('application/octet-stream');
    expect(await sniffMimetype(Buffer.from([0x68, 0x69, 0x00]))).toBe('application/octet-stream');
    // JSON judged by both ends even past the sample size.
    expect(await sniffMimetype(Buffer.from(`[${'1,'.repeat(70_000)}1]`))).toBe('application/json');
    expect(await sniffMimetype(Buffer.from(`{"a": "${'é'.repeat(40_000)}"} `))).toBe('application/json');
  });

  it('names binary formats by their magic bytes', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(17)]);
    expect(await sniffMimetype(png)).toBe('image/png');
    expect(await sniffMimetype(Buffer.from('%PDF-1.7\n%âãÏÓ\n'))).toBe('application/pdf');
    expect(await sniffMimetype(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0]))).toBe('image/jpeg');
    expect(await sniffMimetype(Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.alloc(16)]))).toBe('application/gzip');
  });
});
