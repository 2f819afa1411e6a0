// Checks a whole Run batch before any work: a bad item is named (never its content) and costs no crypto.
import { INDEX_KINDS, type IndexKind } from './blind-index.js';
import { prepareValue, prepareToken, TOKEN_FORMATS, MAX_ATTEMPT, TokenFormatError, type TokenFormat, type TokenItem } from '../proto/token-values.js';
import type { Batch__Output } from '../proto/loader.js';
import { BadItemError } from './batch-errors.js';

/** The token items of a batch, checked and split by validateBatch. */
export interface PreparedTokens {
  tokenize: TokenItem[];
  detokenize: TokenItem[];
}

const MAX_NAME = 256;

function checkName(list: string, i: number, field: string, value: string): void {
  if (!value) throw new BadItemError(`${list}[${i}].${field} is empty`);
  if (value.length > MAX_NAME) throw new BadItemError(`${list}[${i}].${field} is longer than ${MAX_NAME} characters`);
}

function prepareItem(list: 'tokenize' | 'detokenize', i: number, format: string | number, text: string, attempt: number): TokenItem {
  if (!TOKEN_FORMATS.includes(format as TokenFormat)) throw new BadItemError(`${list}[${i}].format is not a known token format`);
  if (!Number.isInteger(attempt) || attempt < 0 || attempt > MAX_ATTEMPT) {
    throw new BadItemError(`${list}[${i}].attempt must be an integer from 0 to ${MAX_ATTEMPT}`);
  }
  try {
    return list === 'tokenize' ? prepareValue(format as TokenFormat, text, attempt) : prepareToken(format as TokenFormat, text, attempt);
  } catch (err) {
    if (err instanceof TokenFormatError) throw new BadItemError(`${list}[${i}].${list === 'tokenize' ? 'value' : 'token'} ${err.message}`);
    throw err;
  }
}

/**
 * Checks the whole batch before any work, so a bad last item costs no crypto and returns no partial result.
 * Token items are split on the way, and handed back so that runBatch does not parse them twice. Kinds and
 * formats are checked by name: an enum number this proto does not know arrives as that number.
 */
export function validateBatch(req: Batch__Output): PreparedTokens {
  if (!Number.isInteger(req.tenant_id) || req.tenant_id < 1) throw new BadItemError('tenant_id must be 1 or more');
  if (req.tenant_salt.length > 64) throw new BadItemError('tenant_salt is longer than 64 bytes');
  req.hash.forEach((item, i) => {
    if (!INDEX_KINDS.includes(item.kind as IndexKind)) throw new BadItemError(`hash[${i}].kind is not a known index kind`);
  });
  const newSubjects = new Set<string>();
  req.new_key_subjects.forEach((subject, i) => {
    checkName('new_key_subjects', i, 'subject', subject);
    if (newSubjects.has(subject)) throw new BadItemError(`new_key_subjects[${i}] repeats a subject`);
    newSubjects.add(subject);
  });
  req.seal.forEach((item, i) => {
    checkName('seal', i, 'table', item.table);
    checkName('seal', i, 'row_id', item.row_id);
    if (item.subject) {
      checkName('seal', i, 'subject', item.subject);
      if (!item.wrapped_key.length && !newSubjects.has(item.subject)) throw new BadItemError(`seal[${i}] names a subject without its key`);
    } else if (item.wrapped_key.length) throw new BadItemError(`seal[${i}].wrapped_key needs a subject`);
  });
  req.open.forEach((item, i) => {
    checkName('open', i, 'table', item.table);
    checkName('open', i, 'row_id', item.row_id);
    if (item.subject) {
      checkName('open', i, 'subject', item.subject);
      if (!item.wrapped_key.length) throw new BadItemError(`open[${i}] names a subject without its key`);
    } else if (item.wrapped_key.length) throw new BadItemError(`open[${i}].wrapped_key needs a subject`);
  });
  req.rewrap_keys.forEach((item, i) => {
    checkName('rewrap_keys', i, 'subject', item.subject);
    if (!item.wrapped_key.length) throw new BadItemError(`rewrap_keys[${i}].wrapped_key is empty`);
  });
  return {
    tokenize: req.tokenize.map((item, i) => prepareItem('tokenize', i, item.format, item.value, item.attempt)),
    detokenize: req.detokenize.map((item, i) => prepareItem('detokenize', i, item.format, item.token, item.attempt)),
  };
}
