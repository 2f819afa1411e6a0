// The settings only the tokenizer reads (besides those it shares with the api: the data directory, the log level,
// its socket), declared once: their documentation (docs/configuration.md is generated from it, with the api's) and
// the list a test holds the tokenizer's sources to.
export interface SettingDoc {
  name: string;
  /** The default as a person reads it. */
  shown: string;
  description: string;
}

export const TOKENIZER_SETTINGS: readonly SettingDoc[] = [
  { name: 'STRONGROOM_WRAPPING_KEY', shown: 'generated once (dev)', description: '64 hex characters; seals the tokenizer\'s keyring' },
  { name: 'STRONGROOM_WRAPPING_KEY_FILE', shown: '–', description: 'A file holding the wrapping key (e.g. a mounted Secret)' },
  {
    name: 'STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS',
    shown: '`1073741824` (2^30)',
    description:
      'AES-GCM seals under one master key version, summed over every tokenizer sharing the keyring, before it rotates by itself (at most 2^31, well below NIST SP 800-38D\'s 2^32 for random nonces); it warns in its log at 90 %',
  },
  {
    name: 'STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS',
    shown: '`2`',
    description:
      'How often it checks whether another tokenizer changed the shared `keyring.json` (rotation, retirement, resplit) and reloads it; `0`: only when a call names a version it lacks and on `KeyringInfo` (see "The shared-keyring rule")',
  },
  { name: 'STRONGROOM_TOKENIZER_METRICS_PORT', shown: '–', description: 'Port of its plain-HTTP `/metrics` (no secrets); unset: not served' },
  {
    name: 'STRONGROOM_RECOVERY_RECIPIENTS',
    shown: '–',
    description: 'Five age recipients (`age1…`): `keyring:init` and `SystemResplitRecoveryKey` encrypt share n to recipient n and never show it in clear',
  },
];
