// Passwordless sign-in: the browser solves a proof-of-work challenge (ALTCHA), the vault emails a one-time code for
// that attempt (`loginid`), and the code is traded for a login xtoken.
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ApiError, call, text } from '../api/client';
import { ErrorMessage, Notice, TextField } from '../shared/ui';
import { isChallenge, solve } from './challenge';
import type { PortalSession } from './session';

/** The vault's short codes, said in words a person understands (the code itself stays visible). */
function explain(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.message === 'captcha-error') return new Error('The check that this is a person expired or failed (captcha-error). A new one is running: try again in a moment.');
  if (err.message === 'login-error') return new Error('That code is wrong, was already used or has expired (login-error). Ask for a new code.');
  return err;
}

interface Solving {
  captchacode: string;
  /** Share of the range searched, 0 to 1. */
  progress: number;
  solution: string | null;
  error: Error | null;
}

/** A fresh challenge from the vault, solved in a worker as soon as it arrives; `renew` asks for another. */
function useSolvedChallenge(active: boolean) {
  const captcha = useQuery({ queryKey: ['captcha'], queryFn: () => call('CaptchaCreate', {}, {}), staleTime: Infinity, gcTime: 0, enabled: active });
  const [solving, setSolving] = useState<Solving | null>(null);
  useEffect(() => {
    const answer = captcha.data;
    if (!answer) return;
    const captchacode = text(answer.captchacode);
    if (!isChallenge(answer.challenge)) {
      setSolving({ captchacode, progress: 0, solution: null, error: new Error('The vault sent no challenge this page understands.') });
      return;
    }
    setSolving({ captchacode, progress: 0, solution: null, error: null });
    const job = solve(answer.challenge, (progress) => setSolving((s) => (s && s.captchacode === captchacode ? { ...s, progress } : s)));
    job.promise.then(
      (n) => setSolving((s) => (s && s.captchacode === captchacode ? { ...s, progress: 1, solution: String(n) } : s)),
      (err: unknown) => setSolving((s) => (s && s.captchacode === captchacode ? { ...s, error: err instanceof Error ? err : new Error(String(err)) } : s)),
    );
    return job.cancel;
  }, [captcha.data]);
  const renew = () => {
    setSolving(null);
    void captcha.refetch();
  };
  return { solving, loadError: captcha.error, renew };
}

/** Where the check stands, in words; announced politely, and only when the words change (every quarter at most). */
function CheckStatus({ solving }: { solving: Solving | null }) {
  const percent = Math.round((solving?.progress ?? 0) * 100);
  const said = !solving
    ? 'Preparing a check that this is a person…'
    : solving.error
      ? 'The check could not be completed.'
      : solving.solution !== null
        ? 'Check done: you can ask for your code.'
        : `Your browser is checking that this is a person… ${Math.floor(percent / 25) * 25}% searched`;
  return (
    <div className="field challenge">
      <label htmlFor="challenge-progress">Check that this is a person</label>
      <progress id="challenge-progress" max={100} value={solving?.solution ? 100 : percent} aria-describedby="challenge-status" />
      <p id="challenge-status" className="muted" role="status" aria-live="polite">
        {said}
      </p>
    </div>
  );
}

export function Login({ onSignedIn }: { onSignedIn: (s: PortalSession) => void }) {
  const [step, setStep] = useState<'ask' | 'code'>('ask');
  const [email, setEmail] = useState('');
  const [smscode, setCode] = useState('');
  const [loginid, setLoginid] = useState('');
  const { solving, loadError, renew } = useSolvedChallenge(step === 'ask');
  const prelogin = useMutation({
    mutationFn: () => call('UserPrelogin', { mode: 'email', identity: email.trim(), code: solving!.solution!, captchacode: solving!.captchacode }, {}),
    onSuccess: (a) => {
      setLoginid(text(a.loginid));
      setStep('code');
    },
    // A challenge is spent by its first answer: a refused one needs a new one ("Start again" asks for one too).
    onError: renew,
  });
  const login = useMutation({
    mutationFn: () => call('UserLogin', { mode: 'email', identity: email.trim(), smscode: smscode.trim(), loginid }, {}),
    onSuccess: (a) => onSignedIn({ xtoken: text(a.xtoken), token: text(a.token) }),
  });
  const ask = (e: FormEvent) => {
    e.preventDefault();
    if (solving?.solution) prelogin.mutate();
  };
  const trade = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  if (step === 'code')
    return (
      <form className="card signin" onSubmit={trade}>
        <h1>Enter your code</h1>
        <Notice>If an account uses this address, a one-time code is on its way. It is valid for 5 minutes.</Notice>
        <TextField label="Code from the email" value={smscode} onChange={setCode} required autoComplete="one-time-code" />
        <div className="actions">
          <button type="submit" className="primary" disabled={login.isPending || !smscode.trim()}>
            Sign in
          </button>
          <button
            type="button"
            onClick={() => {
              setStep('ask');
              setCode('');
              setLoginid('');
              login.reset();
              prelogin.reset();
              renew();
            }}
          >
            Start again
          </button>
        </div>
        <ErrorMessage error={explain(login.error)} />
      </form>
    );
  return (
    <form className="card signin" onSubmit={ask}>
      <h1>Sign in to see your data</h1>
      <p>No password: we email you a one-time code.</p>
      <TextField label="Your email address" type="email" value={email} onChange={setEmail} required autoComplete="email" />
      <CheckStatus solving={solving} />
      <div className="actions">
        <button type="submit" className="primary" disabled={prelogin.isPending || !solving?.solution} aria-describedby="challenge-status">
          Email me a code
        </button>
        {solving?.error ? (
          <button type="button" onClick={renew}>
            New check
          </button>
        ) : null}
      </div>
      <ErrorMessage error={explain(prelogin.error) ?? loadError ?? solving?.error} />
    </form>
  );
}
