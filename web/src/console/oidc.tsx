// Sign-in with the organisation's identity provider (OpenID Connect, api/http/oidc.ts): a link to /oidc/login when
// the vault offers it; back from the provider, the console asks POST /oidc/session for the credential the vault
// made (it sits in an HttpOnly cookie until then, never in the address), and keeps it as a pasted token is kept.
import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { ErrorMessage } from '../shared/ui';

const MESSAGES: Record<string, string> = {
  denied: 'Your account is in no group that may use this vault. Ask an administrator to add you to one.',
  failed: 'Sign-in with your organisation\'s account did not complete. Try again.',
};

async function enabled(): Promise<boolean> {
  const res = await fetch('/oidc/status', { cache: 'no-store' });
  return res.ok;
}

async function handedOver(): Promise<string> {
  const res = await fetch('/oidc/session', { method: 'POST', cache: 'no-store' });
  const body = (await res.json().catch(() => ({}))) as { token?: string };
  if (!res.ok || !body.token) throw new Error(MESSAGES.failed);
  return body.token;
}

export function OidcSignIn({ onToken }: { onToken: (token: string) => Promise<void> }) {
  const { search } = useLocation();
  const navigate = useNavigate();
  const outcome = new URLSearchParams(search).get('oidc');
  const [offered, setOffered] = useState(false);
  const [error, setError] = useState<unknown>(outcome && MESSAGES[outcome] ? new Error(MESSAGES[outcome]) : null);
  const [busy, setBusy] = useState(outcome === 'done');
  const started = useRef(false);
  useEffect(() => {
    enabled().then(setOffered, () => setOffered(false));
  }, []);
  useEffect(() => {
    if (outcome !== 'done' || started.current) return;
    // Once: the vault answers the credential a single time.
    started.current = true;
    handedOver()
      .then(async (token) => {
        await navigate({ search: '' }, { replace: true });
        await onToken(token);
      })
      .catch((err: unknown) => {
        setError(err);
        setBusy(false);
      });
  }, [outcome, navigate, onToken]);
  if (!offered && !busy && !outcome) return null;
  return (
    <div className="oidc">
      {busy ? (
        <p role="status">Signing you in…</p>
      ) : offered ? (
        <a className="button primary" href="/oidc/login">
          Sign in with your organisation's account
        </a>
      ) : null}
      <ErrorMessage error={error} />
    </div>
  );
}
