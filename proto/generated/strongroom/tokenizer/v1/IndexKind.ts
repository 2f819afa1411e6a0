// Original file: proto/tokenizer.proto

/**
 * The kinds of lookup value the api indexes. The tokenizer normalises each kind before hashing:
 * EMAIL lowercased, URL-unescaped and trimmed; PHONE in E.164 when it parses, else trimmed;
 * LOGIN and CUSTOM trimmed. DEDUPE hashes the value as given (for `unique` tokens).
 */
export const IndexKind = {
  INDEX_KIND_UNSPECIFIED: 'INDEX_KIND_UNSPECIFIED',
  LOGIN: 'LOGIN',
  EMAIL: 'EMAIL',
  PHONE: 'PHONE',
  CUSTOM: 'CUSTOM',
  DEDUPE: 'DEDUPE',
} as const;

/**
 * The kinds of lookup value the api indexes. The tokenizer normalises each kind before hashing:
 * EMAIL lowercased, URL-unescaped and trimmed; PHONE in E.164 when it parses, else trimmed;
 * LOGIN and CUSTOM trimmed. DEDUPE hashes the value as given (for `unique` tokens).
 */
export type IndexKind =
  | 'INDEX_KIND_UNSPECIFIED'
  | 0
  | 'LOGIN'
  | 1
  | 'EMAIL'
  | 2
  | 'PHONE'
  | 3
  | 'CUSTOM'
  | 4
  | 'DEDUPE'
  | 5

/**
 * The kinds of lookup value the api indexes. The tokenizer normalises each kind before hashing:
 * EMAIL lowercased, URL-unescaped and trimmed; PHONE in E.164 when it parses, else trimmed;
 * LOGIN and CUSTOM trimmed. DEDUPE hashes the value as given (for `unique` tokens).
 */
export type IndexKind__Output = typeof IndexKind[keyof typeof IndexKind]
