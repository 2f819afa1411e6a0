// The privacy portal: the tenant's branding, passwordless sign-in, then the person's own pages.
import { useEffect, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { call, objectOf, text } from '../api/client';
import { loadSession, saveSession } from '../shared/session';
import { Login } from './Login';
import { MeContext, SESSION_KEY, meFor, type PortalSession } from './session';
import { MyAppData, MyProfile, MySessions } from './MyData';
import { MyConsents, MyReport, MyRequests, MyShares } from './MyRights';

const PAGES = {
  Profile: MyProfile,
  Consents: MyConsents,
  'App data': MyAppData,
  Sessions: MySessions,
  Requests: MyRequests,
  Share: MyShares,
  Download: MyReport,
} as const;
type PageName = keyof typeof PAGES;

/** Ends the login xtoken in the vault, so that a copy of it left in this browser is worth nothing; a failure (the
 * vault unreachable, the xtoken already expired) still signs out here. */
async function signOut(session: PortalSession): Promise<void> {
  await call('UserLogout', {}, { token: session.xtoken }).catch(() => undefined);
}

export function App() {
  const client = useQueryClient();
  const [session, setSession] = useState<PortalSession | null>(() => loadSession<PortalSession>(SESSION_KEY));
  const [page, setPage] = useState<PageName>('Profile');
  const ui = useQuery({ queryKey: ['uiconf'], queryFn: () => call('TenantGetUIConf', {}, {}), staleTime: Infinity });
  const brand = objectOf(ui.data?.ui);
  const company = text(brand.company_title) || 'Privacy portal';
  const me = useMemo(() => (session ? meFor(session) : null), [session]);
  useEffect(() => {
    document.title = `${session ? page : 'Sign in'} · ${company} privacy portal`;
  }, [session, page, company]);
  const update = (next: PortalSession | null) => {
    saveSession(SESSION_KEY, next);
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'uiconf' });
    setPage('Profile');
    setSession(next);
  };
  const Page = PAGES[page];
  return (
    <div className="portal">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <p className="brand">
          {brand.logo_link ? <img src={text(brand.logo_link)} alt="" height={28} /> : null} {company} · privacy portal
        </p>
        {session ? (
          <div className="who">
            <button type="button" onClick={() => void signOut(session).finally(() => update(null))}>
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      {me ? (
        <MeContext.Provider value={me}>
          <nav className="portal-nav" aria-label="Your data">
            {(Object.keys(PAGES) as PageName[]).map((name) => (
              <button key={name} type="button" aria-current={page === name ? 'page' : undefined} onClick={() => setPage(name)}>
                {name}
              </button>
            ))}
          </nav>
          <main id="main" tabIndex={-1}>
            <Page />
          </main>
        </MeContext.Provider>
      ) : (
        <main id="main" tabIndex={-1}>
          <Login onSignedIn={update} />
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
