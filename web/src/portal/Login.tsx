// Passwordless sign-in: solve the captcha, receive a six-digit code by email, trade it for a login xtoken.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ApiError, call, text } from '../api/client';
import { ErrorMessage, Loading, Notice, TextField } from '../shared/ui';
import type { PortalSession } from './session';

/** The vault's short codes, said in words a person understands (the code itself stays visible). */
function explain(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.message === 'captcha-error') return new Error('The characters did not match the picture (captcha-error). A new picture is shown: try again.');
  if (err.message === 'login-error') return new Error('That code is wrong, was already used or has expired (login-error). Ask for a new code.');
  return err;
}

export function Login({ onSignedIn }: { onSignedIn: (s: PortalSession) => void }) {
  const [step, setStep] = useState<'ask' | 'code'>('ask');
  const [email, setEmail] = useState('');
  const [answer, setAnswer] = useState('');
  const [smscode, setCode] = useState('');
  const captcha = useQuery({ queryKey: ['captcha'], queryFn: () => call('CaptchaCreate', {}, {}), staleTime: Infinity, enabled: step === 'ask' });
  const prelogin = useMutation({
    mutationFn: () => call('UserPrelogin', { mode: 'email', identity: email.trim(), code: answer.trim(), captchacode: text(captcha.data?.captchacode) }, {}),
    onSuccess: () => setStep('code'),
    onError: async () => {
      setAnswer('');
      await captcha.refetch();
    },
  });
  const login = useMutation({
    mutationFn: () => call('UserLogin', { mode: 'email', identity: email.trim(), smscode: smscode.trim() }, {}),
    onSuccess: (a) => onSignedIn({ xtoken: text(a.xtoken), token: text(a.token) }),
  });
  const ask = (e: FormEvent) => {
    e.preventDefault();
    prelogin.mutate();
  };
  const trade = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  if (step === 'code')
    return (
      <form className="card signin" onSubmit={trade}>
        <h1>Enter your code</h1>
        <Notice>If an account uses this address, a six-digit code is on its way. It is valid for 60 seconds.</Notice>
        <TextField label="Six-digit code" value={smscode} onChange={setCode} required autoComplete="one-time-code" />
        <div className="actions">
          <button type="submit" className="primary" disabled={login.isPending || !smscode.trim()}>
            Sign in
          </button>
          <button
            type="button"
            onClick={() => {
              setStep('ask');
              setCode('');
              login.reset();
              prelogin.reset();
              void captcha.refetch();
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
      <div className="field captcha">
        <span id="captcha-label">Type the characters in the picture</span>
        {captcha.isLoading ? <Loading what="the picture" /> : null}
        {captcha.data ? <img src={text(captcha.data.image)} alt="A picture of characters to type (a captcha)" /> : null}
        <button type="button" onClick={() => void captcha.refetch()}>
          New picture
        </button>
      </div>
      <TextField label="Characters in the picture" value={answer} onChange={setAnswer} required />
      <button type="submit" className="primary" disabled={prelogin.isPending || !captcha.data}>
        Email me a code
      </button>
      <ErrorMessage error={explain(prelogin.error) ?? captcha.error} />
    </form>
  );
}
