// The admin console: sign in with a token kept for this tab only, then one section at a time, each at its own address
// (routes.tsx), so deep links, back and reload keep the place.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { NavLink, useLocation, useNavigate } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, call, consoleCredentials, rowsOf, text } from '../api/client';
import { loadSession, saveSession } from '../shared/session';
import { ErrorMessage, TextField } from '../shared/ui';
import { SESSION_KEY, VaultContext, vaultFor, type ConsoleSession } from './session';
import { UnlockProvider } from './unlock';
import { OidcSignIn } from './oidc';
import { ConsoleRoutes, SECTIONS, ROOT_ONLY } from './routes';

export function App() {
  const [session, setSession] = useState<ConsoleSession | null>(() => loadSession<ConsoleSession>(SESSION_KEY));
  const client = useQueryClient();
  const update = (next: ConsoleSession | null) => {
    // A sign-in's own credential ends with the sign-out: a copy taken before is worthless (pasted tokens stay).
    if (!next && session?.viaOidc) void fetch('/oidc/logout', { method: 'POST', headers: { 'x-bunker-token': session.token }, cache: 'no-store' }).catch(() => undefined);
    saveSession(SESSION_KEY, next);
    client.clear();
    setSession(next);
  };
  if (!session) return <SignIn onSignedIn={update} />;
  return <Console session={session} onChange={update} />;
}

/**
 * Any credential of a tenant is accepted; one of the main tenant's admins (it may list tenants) also gets the
 * tenant switcher. A role xtoken whose policies refuse the probe is still a valid credential.
 */
async function identify(token: string): Promise<ConsoleSession> {
  try {
    await call('TenantListTenants', {}, consoleCredentials('TenantListTenants', { token }));
    return { token, tenant: '', kind: 'root' };
  } catch (err) {
    if (!(err instanceof ApiError) || err.httpStatus !== 403) throw err;
  }
  try {
    await call('LegalBasisListAgreements', {}, consoleCredentials('LegalBasisListAgreements', { token }));
  } catch (err) {
    if (!(err instanceof ApiError && err.message === 'API access denied')) throw err;
  }
  return { token, tenant: '', kind: 'admin' };
}

function SignIn({ onSignedIn }: { onSignedIn: (s: ConsoleSession) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Strongroom console';
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await identify(token.trim()));
    } catch (err) {
      setError(err instanceof ApiError && err.httpStatus === 403 ? new Error('This token is not valid here (Access denied).') : err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="signin">
      <h1>Strongroom console</h1>
      <OidcSignIn onToken={async (t) => onSignedIn({ ...(await identify(t)), viaOidc: true })} />
      <form className="card" onSubmit={(e) => void submit(e)}>
        <p>Sign in with a root token, a tenant admin token or a role xtoken. It is kept only in this tab and forgotten when the tab closes.</p>
        <TextField label="Token" type="password" value={token} onChange={setToken} required autoComplete="off" />
        <button type="submit" className="primary" disabled={busy || !token.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorMessage error={error} />
      </form>
      <p>
        <a href="/docs/">API reference</a> · <a href="/portal/">Privacy portal</a>
      </p>
    </main>
  );
}

function Console({ session, onChange }: { session: ConsoleSession; onChange: (s: ConsoleSession | null) => void }) {
  const vault = useMemo(() => vaultFor(session), [session]);
  const sections = SECTIONS.filter((s) => session.kind === 'root' || !ROOT_ONLY.includes(s.path));
  return (
    <VaultContext.Provider value={vault}>
      <UnlockProvider>
        <a className="skip" href="#main">
          Skip to content
        </a>
        <header className="top">
          <p className="brand">Strongroom console</p>
          <div className="who">
            <span className="tag">{session.kind === 'root' ? 'main-tenant admin' : 'tenant credential'}</span>
            {session.kind === 'root' ? <TenantSwitcher session={session} onChange={onChange} /> : null}
            <button type="button" onClick={() => onChange(null)}>
              Sign out
            </button>
          </div>
        </header>
        <div className="layout">
          <nav className="side" aria-label="Console sections">
            <ul>
              {sections.map((s) => (
                <li key={s.path}>
                  <NavLink to={`/${s.path}`} className="navitem">
                    {s.name}
                  </NavLink>
                </li>
              ))}
              <li>
                <a href="/docs/" className="navitem">
                  API reference
                </a>
              </li>
            </ul>
          </nav>
          <main id="main" tabIndex={-1}>
            <ConsoleRoutes key={session.tenant} kind={session.kind} />
          </main>
        </div>
      </UnlockProvider>
    </VaultContext.Provider>
  );
}

function TenantSwitcher({ session, onChange }: { session: ConsoleSession; onChange: (s: ConsoleSession) => void }) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const tenants = useQuery({ queryKey: ['tenants', 'switcher'], queryFn: () => call('TenantListTenants', {}, consoleCredentials('TenantListTenants', { token: session.token })) });
  const names = rowsOf(tenants.data).map((r) => text(r.tenantname));
  return (
    <span className="field-inline">
      <label htmlFor="tenant-switch">Tenant</label>{' '}
      <select id="tenant-switch" value={session.tenant || 'main'} onChange={(e) => {
          // A record of one tenant does not exist in another: go back to the section's start.
          void navigate(`/${pathname.split('/')[1] || 'people'}`);
          onChange({ ...session, tenant: e.target.value === 'main' ? '' : e.target.value });
        }}>
        {(names.length ? names : ['main']).map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </span>
  );
}
