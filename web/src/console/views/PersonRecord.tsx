// One person's record: profile, versions, data, consent, sessions, files, shares, requests, xtokens, audit, report.
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useVault } from '../session';
import { objectOf, text } from '../../api/client';
import { Copyable, QueryState } from '../../shared/ui';
import { ProfileTab, VersionsTab } from './PersonProfile';
import { AgreementsTab, AppdataTab, SessionsTab } from './PersonData';
import { FilesTab, SharedTab } from './PersonFiles';
import { AuditTab, ReportTab, RequestsTab } from './PersonActivity';
import { XTokens } from './XTokens';

const TABS = ['Profile', 'Versions', 'App data', 'Agreements', 'Sessions', 'Files', 'Shared records', 'Requests', 'Xtokens', 'Audit', 'Report'] as const;
type Tab = (typeof TABS)[number];

/** A tab's part of the address: /console/people/<token>/app-data. */
const slug = (t: Tab) => t.toLowerCase().replace(/ /g, '-');

export function PersonRecord({ token, tab: tabSlug }: { token: string; tab?: string | undefined }) {
  const vault = useVault();
  const navigate = useNavigate();
  const tab = TABS.find((t) => slug(t) === tabSlug) ?? 'Profile';
  const setTab = (t: Tab) => void navigate(`/people/${encodeURIComponent(token)}/${slug(t)}`);
  const onClose = () => void navigate('/people');
  const person = useQuery({ queryKey: ['person', vault.session.tenant, token], queryFn: () => vault.call('UserGet', { mode: 'token', identity: token }) });
  const profile = objectOf(person.data?.profile);
  const heading = text(profile.name) || text(profile.login) || 'Person';
  return (
    <>
      <div className="actions">
        <button type="button" onClick={onClose}>
          ← Back to people
        </button>
      </div>
      <h1>{heading}</h1>
      <p className="muted">
        Token <Copyable value={token} what="record token" />
        {person.data ? ` · version ${text(person.data.version)}` : ''}
      </p>
      <QueryState loading={person.isLoading} error={person.error} what="the record" />
      <div className="tabs" role="tablist" aria-label="Parts of the record">
        {TABS.map((t) => (
          <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={tab === t} aria-controls="person-panel" tabIndex={tab === t ? 0 : -1} onClick={() => setTab(t)} onKeyDown={(e) => moveTab(e.key, t, setTab)}>
            {t}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="person-panel" aria-labelledby={`tab-${tab}`}>
        {person.data ? <Panel tab={tab} token={token} profile={profile} onDeleted={onClose} /> : null}
      </div>
    </>
  );
}

/** Arrow keys move between tabs, as the ARIA tabs pattern expects. */
function moveTab(key: string, current: Tab, setTab: (t: Tab) => void) {
  const i = TABS.indexOf(current);
  const next = key === 'ArrowRight' ? TABS[(i + 1) % TABS.length] : key === 'ArrowLeft' ? TABS[(i - 1 + TABS.length) % TABS.length] : undefined;
  if (!next) return;
  setTab(next);
  document.getElementById(`tab-${next}`)?.focus();
}

function Panel({ tab, token, profile, onDeleted }: { tab: Tab; token: string; profile: Record<string, unknown>; onDeleted: () => void }) {
  switch (tab) {
    case 'Profile':
      return <ProfileTab token={token} profile={profile} onDeleted={onDeleted} />;
    case 'Versions':
      return <VersionsTab token={token} profile={profile} />;
    case 'App data':
      return <AppdataTab token={token} />;
    case 'Agreements':
      return <AgreementsTab token={token} />;
    case 'Sessions':
      return <SessionsTab token={token} />;
    case 'Files':
      return <FilesTab token={token} />;
    case 'Shared records':
      return <SharedTab token={token} profile={profile} />;
    case 'Requests':
      return <RequestsTab token={token} />;
    case 'Xtokens':
      return <XTokensTab token={token} />;
    case 'Audit':
      return <AuditTab token={token} />;
    case 'Report':
      return <ReportTab token={token} />;
  }
}

/** The person's login xtokens: what the portal signs them in with, or what an admin made for them. */
function XTokensTab({ token }: { token: string }) {
  const vault = useVault();
  return (
    <XTokens
      queryKey={['xtokens', 'user', vault.session.tenant, token]}
      whose="this person"
      level={2}
      list={() => vault.call('XTokenListForUser', { mode: 'token', identity: token })}
      create={(finaltime) => vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime })}
    />
  );
}
