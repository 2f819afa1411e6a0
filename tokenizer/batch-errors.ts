// The two ways a Run batch ends early, shared by the batch, its validation and the calls that report them.

/** The caller sent something unusable; the message names the item and never its content. */
export class BadItemError extends Error {
  override name = 'BadItemError';
}

/** The caller went away or its deadline passed: the rest of the batch is not worth computing. */
export class StoppedError extends Error {
  override name = 'StoppedError';
  constructor(readonly why: 'cancelled' | 'deadline') {
    super(why === 'cancelled' ? 'call cancelled' : 'deadline exceeded');
  }
}
