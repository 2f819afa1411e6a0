// Original file: proto/tokenizer.proto


/**
 * A person's wrapped data key to wrap again under the active master key version (rotation).
 */
export interface RewrapKeyItem {
  'subject'?: (string);
  'wrapped_key'?: (Buffer | Uint8Array | string);
}

/**
 * A person's wrapped data key to wrap again under the active master key version (rotation).
 */
export interface RewrapKeyItem__Output {
  'subject': (string);
  'wrapped_key': (Buffer);
}
