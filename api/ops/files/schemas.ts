// Input pieces shared by the file operations, with the contract's rules for names, tags and mimetypes.
import { z } from 'zod';
import { Uuid } from '../schemas.js';

const invalid = (field: string, why: string) => `Invalid API request parameter: ${field}: ${why}`;

export const BAD_BASE64 = 'The filedata parameter is not valid base64';

/** 1 to 255 characters, no control characters, no broken UTF-16 (it could not be sealed or shown faithfully). */
export const FileName = z
  .string({ error: (iss) => (iss.input === undefined ? undefined : invalid('filename', 'expected a string')) })
  .min(1, { error: invalid('filename', 'must be 1 to 255 characters') })
  .max(255, { error: invalid('filename', 'must be 1 to 255 characters') })
  // oxlint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { error: invalid('filename', 'must not contain control characters') })
  // A lone surrogate does not survive UTF-8: the name sealed would not be the name given.
  .refine((s) => Buffer.from(s, 'utf8').toString('utf8') === s, { error: invalid('filename', 'must be valid Unicode') });

/** Base64 text; whether it decodes is checked by the operation, with the contract's own message. */
export const FileData = z.string({ error: (iss) => (iss.input === undefined ? undefined : invalid('filedata', 'expected a base64 string')) });

export const FileUuid = Uuid;

const TOKEN = "[a-z0-9!#$&^_.+-]+";
const MIMETYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\u0000-\\u001f]*"))*$`, 'i');

/** `type/subtype` with optional parameters: it becomes a Content-Type header, so nothing else gets through. */
export const Mimetype = z
  .string({ error: (iss) => (iss.input === undefined ? undefined : invalid('mimetype', 'expected a string')) })
  .trim()
  .max(255, { error: invalid('mimetype', 'at most 255 characters') })
  .regex(MIMETYPE, { error: invalid('mimetype', 'expected type/subtype') });

export const TAG_PATTERN = /^[a-z0-9][a-z0-9._-]{0,49}$/;
export const MAX_TAGS = 16;
const badTag = invalid('tags', `each tag must match ${TAG_PATTERN.source}`);

/** One tag, lowercased and trimmed. */
export const Tag = z
  .string({ error: (iss) => (iss.input === undefined ? undefined : invalid('tag', 'expected a string')) })
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.string().regex(TAG_PATTERN, { error: invalid('tag', `must match ${TAG_PATTERN.source}`) }));

/** An array or a comma-separated string; lowercased, de-duplicated, sorted, at most MAX_TAGS kept. */
export const Tags = z
  .union([z.array(z.string()), z.string()], { error: (iss) => (iss.input === undefined ? undefined : invalid('tags', 'expected an array of strings or a string')) })
  .transform((v, ctx) => {
    const tags = (typeof v === 'string' ? v.split(',') : v).map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
    if (tags.every((t) => TAG_PATTERN.test(t))) return [...new Set(tags)].sort().slice(0, MAX_TAGS);
    ctx.issues.push({ code: 'custom', message: badTag, input: v });
    return z.NEVER;
  });

/** `raw` as JSON true/false, or the strings some clients send. */
export const Raw = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: invalid('raw', 'expected true or false') })
  .transform((v) => v === true || v === 'true' || v === '1');
