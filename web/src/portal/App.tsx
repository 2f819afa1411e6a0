// The privacy portal: the tenant's branding, passwordless sign-in, then the person's own pages, each at its own
// address (/portal/consents, …); and, with no sign-in, a shared record for its recipient (/portal/shared/<uuid>).
import { useEffect, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useMatch, useNavigate } from 'react-router';
import { call, objectOf, text } from '../api/client';
import { loadSession, saveSession } from '../shared/session';
import { Login } from './Login';
import { MeContext, SESSION_KEY, meFor, type PortalSession } from './session';
import { MyAppData, MyProfile, MySessions } from './MyData';
import { MyConsents, MyReport, MyRequests, MyShares } from './MyRights';
import { SharedView } from './Shared';
import { MyAccesses } from './MyAccesses';
import { ReceiptLink, ReceiptView } from './Receipt';

const PAGES = [
  { path: 'profile', name: 'Profile', Page: MyProfile },
  { path: 'consents', name: 'Consents', Page: MyConsents },
  { path: 'app-data', name: 'App data', Page: MyAppData },
  { path: 'sessions', name: 'Sessions', Page: MySessions },
  { path: 'requests', name: 'Requests', Page: MyRequests },
  { path: 'share', name: 'Share', Page: MyShares },
  { path: 'accesses', name: 'Who accessed my data', Page: MyAccesses },
  { path: 'download', name: 'Download', Page: MyReport },
] as const;

/** Ends the login xtoken in the vault, so that a copy of it left in this browser is worth nothing; a failure (the
 * vault unreachable, the xtoken already expired) still signs out here. */
async function signOut(session: PortalSession): Promise<void> {
  await call('UserLogout', {}, { token: session.xtoken }).catch(() => undefined);
}

export function App() {
  const client = useQueryClient();
  const [session, setSession] = useState<PortalSession | null>(() => loadSession<PortalSession>(SESSION_KEY));
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const shared = useMatch('/shared/:recorduuid');
  const receipt = useMatch('/erasure-receipt');
  const page = PAGES.find((p) => p.path === pathname.split('/')[1]) ?? PAGES[0];
  const ui = useQuery({ queryKey: ['uiconf'], queryFn: () => call('TenantGetUIConf', {}, {}), staleTime: Infinity });
  const brand = objectOf(ui.data?.ui);
  const company = text(brand.company_title) || 'Privacy portal';
  const me = useMemo(() => (session ? meFor(session) : null), [session]);
  useEffect(() => {
    document.title = `${shared ? 'Shared with you' : receipt ? 'Erasure receipt' : session ? page.name : 'Sign in'} · ${company} privacy portal`;
  }, [session, page, company, shared, receipt]);
  const update = (next: PortalSession | null) => {
    saveSession(SESSION_KEY, next);
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'uiconf' });
    if (!next) void navigate('/');
    setSession(next);
  };
  const Page = page.Page;
  return (
    <div className="portal">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <p className="brand">
          {brand.logo_link ? <img src={text(brand.logo_link)} alt="" height={28} /> : null} {company} · privacy portal
        </p>
        {session && !shared && !receipt ? (
          <div className="who">
            <button type="button" onClick={() => void signOut(session).finally(() => update(null))}>
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      {shared ? (
        <main id="main" tabIndex={-1}>
          <SharedView recorduuid={shared.params.recorduuid ?? ''} />
        </main>
      ) : receipt ? (
        <main id="main" tabIndex={-1}>
          <ReceiptView />
        </main>
      ) : me ? (
        <MeContext.Provider value={me}>
          <nav className="portal-nav" aria-label="Your data">
            {PAGES.map((p) => (
              <Link key={p.path} to={`/${p.path}`} aria-current={p === page ? 'page' : undefined}>
                {p.name}
              </Link>
            ))}
          </nav>
          <main id="main" tabIndex={-1}>
            <Page />
          </main>
        </MeContext.Provider>
      ) : (
        <main id="main" tabIndex={-1}>
          <Login onSignedIn={update} />
          <ReceiptLink />
        </main>
      )}
      <footer className="site">
        {brand.privacy_policy_link ? <a href={text(brand.privacy_policy_link)}>{text(brand.privacy_policy_title) || 'Privacy policy'}</a> : null}{' '}
        {brand.term_of_service_link ? <a href={text(brand.term_of_service_link)}>{text(brand.term_of_service_title) || 'Terms of service'}</a> : null}{' '}
        <span>{[brand.company_address, brand.company_city, brand.company_country].map(text).filter(Boolean).join(', ')}</span>
      </footer>
    </div>
  );
}
