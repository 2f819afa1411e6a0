// Original file: proto/tokenizer.proto

/**
 * Format-preserving token types (FF1, NIST SP 800-38G Rev. 1, under the tenant's `fpe` subkey).
 */
export const TokenFormat = {
  TOKEN_FORMAT_UNSPECIFIED: 'TOKEN_FORMAT_UNSPECIFIED',
  /**
   * 12 to 19 digits once spaces and dashes are stripped; the token has the same length, passes the Luhn
   * check and never equals the input. A card's attempts end in the digit by which its last digit misses
   * the Luhn check digit (0 for a real card number) and go up in tens.
   */
  CREDITCARD: 'CREDITCARD',
  /**
   * A Unix time written in 6 to 19 decimal digits; the token has the same digit count, and from 10 digits
   * on the same leading digit.
   */
  UNIXTIME: 'UNIXTIME',
  /**
   * local@domain.tld, lowercased; the token is a well-formed address of the same shape: letters and digits
   * stay letters and digits, everything else and the top-level domain stay as they are (see the README).
   */
  EMAIL: 'EMAIL',
} as const;

/**
 * Format-preserving token types (FF1, NIST SP 800-38G Rev. 1, under the tenant's `fpe` subkey).
 */
export type TokenFormat =
  | 'TOKEN_FORMAT_UNSPECIFIED'
  | 0
  /**
   * 12 to 19 digits once spaces and dashes are stripped; the token has the same length, passes the Luhn
   * check and never equals the input. A card's attempts end in the digit by which its last digit misses
   * the Luhn check digit (0 for a real card number) and go up in tens.
   */
  | 'CREDITCARD'
  | 1
  /**
   * A Unix time written in 6 to 19 decimal digits; the token has the same digit count, and from 10 digits
   * on the same leading digit.
   */
  | 'UNIXTIME'
  | 2
  /**
   * local@domain.tld, lowercased; the token is a well-formed address of the same shape: letters and digits
   * stay letters and digits, everything else and the top-level domain stay as they are (see the README).
   */
  | 'EMAIL'
  | 3

/**
 * Format-preserving token types (FF1, NIST SP 800-38G Rev. 1, under the tenant's `fpe` subkey).
 */
export type TokenFormat__Output = typeof TokenFormat[keyof typeof TokenFormat]
