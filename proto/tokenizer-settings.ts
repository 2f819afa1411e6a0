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
  {
    name: 'STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS',
    shown: '`600`',
    description:
      'How long unwrapped data keys stay in the tokenizer\'s memory, and how long a `pkcs11` keyring keeps serving while its HSM does not answer; then key calls answer 503 until it is back (see "Key custody" in docs/operations.md)',
  },
  {
    name: 'STRONGROOM_TOKENIZER_CUSTODY',
    shown: '`static`',
    description:
      'Who seals the keyring: `static` (the wrapping key above) or `pkcs11` (a non-extractable AES-256 key in an HSM, AES-GCM inside it; start needs no key material: auto-unseal)',
  },
  { name: 'STRONGROOM_PKCS11_MODULE', shown: '–', description: 'With `pkcs11`: path of the HSM vendor\'s PKCS#11 library (e.g. `/usr/lib/softhsm/libsofthsm2.so`)' },
  { name: 'STRONGROOM_PKCS11_TOKEN_LABEL', shown: '–', description: 'With `pkcs11`: the label of the token holding the key (or give `STRONGROOM_PKCS11_SLOT`)' },
  { name: 'STRONGROOM_PKCS11_SLOT', shown: '–', description: 'With `pkcs11`: the slot id instead of the token label' },
  { name: 'STRONGROOM_PKCS11_PIN', shown: '–', description: 'With `pkcs11`: the token\'s user PIN (never logged); prefer `STRONGROOM_PKCS11_PIN_FILE`' },
  { name: 'STRONGROOM_PKCS11_PIN_FILE', shown: '–', description: 'With `pkcs11`: a file holding the user PIN (e.g. a mounted Secret)' },
  {
    name: 'STRONGROOM_PKCS11_KEY_LABEL',
    shown: '–',
    description: 'With `pkcs11`: the label of the AES-256 key object that seals the keyring (made by `npm run keyring:init -- --pkcs11` or the HSM ceremony)',
  },
];
