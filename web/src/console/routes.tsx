// Every section and record of the console has its own address under /console/ (the vault answers index.html for
// any path there), so a link can be shared, back goes back and a reload keeps the place. Addresses carry record
// tokens and names of roles and groups, never a person's email, name or other personal data.
import { useEffect, type ReactNode } from 'react';
import { Navigate, Route, Routes, useParams } from 'react-router';
import { Overview } from './views/Overview';
import { People } from './views/People';
import { PersonRecord } from './views/PersonRecord';
import { Requests } from './views/Requests';
import { Consent } from './views/Consent';
import { Tokens } from './views/Tokens';
import { Access } from './views/Access';
import { Groups } from './views/Groups';
import { Audit } from './views/Audit';
import { Events } from './views/Events';
import { Tenants } from './views/Tenants';
import { System } from './views/System';

export const SECTIONS = [
  { path: 'overview', name: 'Overview' },
  { path: 'people', name: 'People' },
  { path: 'requests', name: 'Requests' },
  { path: 'consent', name: 'Consent' },
  { path: 'tokens', name: 'Tokens' },
  { path: 'access', name: 'Access' },
  { path: 'groups', name: 'Groups' },
  { path: 'audit', name: 'Audit' },
  { path: 'events', name: 'Events' },
  { path: 'tenants', name: 'Tenants' },
  { path: 'system', name: 'System' },
] as const;

/** Sections only a main-tenant admin (root) is served. */
export const ROOT_ONLY: readonly string[] = ['tenants', 'access'];

/** The page title names the section only: never the person or record on screen. */
function Titled({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Strongroom console`;
  }, [title]);
  return children;
}

export function ConsoleRoutes({ kind }: { kind: 'root' | 'admin' }) {
  const root = kind === 'root';
  return (
    <Routes>
      <Route index element={<Navigate to="/people" replace />} />
      <Route path="overview" element={<Titled title="Overview"><Overview /></Titled>} />
      <Route path="people" element={<Titled title="People"><People /></Titled>} />
      <Route path="people/:token/:tab?" element={<Titled title="Person"><PersonRoute /></Titled>} />
      <Route path="requests/:requestuuid?" element={<Titled title="Requests"><Requests /></Titled>} />
      <Route path="consent" element={<Titled title="Consent"><Consent /></Titled>} />
      <Route path="tokens" element={<Titled title="Tokens"><Tokens /></Titled>} />
      <Route path="groups/:groupname?" element={<Titled title="Groups"><Groups /></Titled>} />
      <Route path="audit/:eventuuid?" element={<Titled title="Audit"><Audit /></Titled>} />
      <Route path="events/:tab?" element={<Titled title="Events"><EventsRoute /></Titled>} />
      <Route path="system" element={<Titled title="System"><System /></Titled>} />
      {root ? <Route path="access/roles/:rolename?" element={<Titled title="Access"><Access /></Titled>} /> : null}
      {root ? <Route path="access" element={<Titled title="Access"><Access /></Titled>} /> : null}
      {root ? <Route path="tenants" element={<Titled title="Tenants"><Tenants /></Titled>} /> : null}
      <Route path="*" element={<Titled title="Not found"><NotFound /></Titled>} />
    </Routes>
  );
}

function PersonRoute() {
  const { token = '', tab } = useParams();
  return <PersonRecord key={token} token={token} tab={tab} />;
}

function EventsRoute() {
  return <Events tab={useParams().tab} />;
}

function NotFound() {
  return (
    <>
      <h1>Nothing here</h1>
      <p>
        This address is not a page of the console (or not one your credential may open). Choose a section on the left.
      </p>
    </>
  );
}
