// The keyring as the main tenant administers it, through the tokenizer that alone holds it: its status, a new
// master key version (persons' keys are then rewrapped in the background), a new wrapping key, a new split of the
// recovery key. The api never sees a key or a share it was not given.
import type { TokenizerClient } from '../tokenizer-client.js';
import type { Rewrapper } from './jobs/rewrap.js';

export class KeyCustody {
  constructor(
    private readonly tokenizer: TokenizerClient,
    private readonly rewrapper: Rewrapper,
  ) {}

  /** Versions, the active one, seals per version, the keyring's id and the audit checkpoints' public key. */
  status() {
    return this.tokenizer.keyringInfo();
  }

  /** A new master key version, active for new writes at once; the rewrapper is woken to move persons' keys to it. */
  async rotate(): Promise<number> {
    const active = await this.tokenizer.rotate();
    this.rewrapper.kick();
    return active;
  }

  /** The keyring sealed under a new wrapping key, given three recovery shares: the new key, once. */
  rewrap(shares: string[]): Promise<string> {
    return this.tokenizer.rewrap(shares);
  }

  /** A new split of the recovery key, given three current shares. */
  resplit(shares: string[]) {
    return this.tokenizer.resplit(shares);
  }
}
