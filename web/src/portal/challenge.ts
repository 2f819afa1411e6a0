// The portal's proof of work: the vault's ALTCHA challenge (CaptchaCreate) solved in a Web Worker, so the page stays
// responsive, with how far the search got.

/** The challenge as CaptchaCreate sends it. */
export interface AltchaChallenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

export type SolverTask = Pick<AltchaChallenge, 'algorithm' | 'challenge' | 'maxnumber' | 'salt'>;
export type SolverReply = { kind: 'progress'; tried: number } | { kind: 'solved'; number: number } | { kind: 'failed' };

export function isChallenge(value: unknown): value is AltchaChallenge {
  const c = value as Partial<AltchaChallenge> | null;
  return typeof c === 'object' && c !== null && typeof c.challenge === 'string' && typeof c.salt === 'string' && typeof c.algorithm === 'string' && typeof c.maxnumber === 'number';
}

/**
 * Finds the number n in [0, maxnumber] whose SHA-256 of `salt + n` is the challenge. `onProgress` gets the share of
 * the range searched so far (the answer is usually found well before the end). `cancel` stops the worker.
 */
export function solve(task: SolverTask, onProgress: (fraction: number) => void): { promise: Promise<number>; cancel: () => void } {
  const worker = new Worker(new URL('./solver.worker.ts', import.meta.url), { type: 'module', name: 'altcha-solver' });
  const promise = new Promise<number>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<SolverReply>) => {
      const reply = e.data;
      if (reply.kind === 'progress') return onProgress(Math.min(1, reply.tried / (task.maxnumber + 1)));
      worker.terminate();
      if (reply.kind === 'solved') resolve(reply.number);
      else reject(new Error('This browser could not solve the check. Ask for a new one.'));
    };
    worker.onerror = () => {
      worker.terminate();
      reject(new Error('This browser could not run the check. Reload the page and try again.'));
    };
  });
  const { algorithm, challenge, maxnumber, salt } = task;
  worker.postMessage({ algorithm, challenge, maxnumber, salt } satisfies SolverTask);
  return { promise, cancel: () => worker.terminate() };
}
