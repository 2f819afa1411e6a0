// A shared record as its recipient sees it, with no sign-in: /portal/shared/<uuid> reads the shared fields with the
// public SharedRecordGet and shows them read-only, with the expiry the vault answers with them (never one the link
// might carry: whoever forwards a link could write any date into it).
import { useQuery } from '@tanstack/react-query';
import { ApiError, call, objectOf } from '../api/client';
import { ErrorMessage, Fields, Loading } from '../shared/ui';
import { formatTime } from '../shared/session';

export function SharedView({ recorduuid }: { recorduuid: string }) {
  const shared = useQuery({ queryKey: ['shared', recorduuid], queryFn: () => call('SharedRecordGet', { recorduuid }, {}) });
  const gone = shared.error instanceof ApiError && (shared.error.httpStatus === 404 || shared.error.httpStatus === 400);
  return (
    <>
      <h1>Data shared with you</h1>
      <p>Someone chose to show you these details from the record this organisation keeps about them. They are read-only, and the link stops working when it expires or when they revoke it.</p>
      {shared.data && Number(shared.data.expirationtime) > 0 ? <p>Valid until {formatTime(Number(shared.data.expirationtime))}.</p> : null}
      {shared.isLoading ? <Loading what="the shared data" /> : null}
      {gone ? <p className="error" role="alert">This link has expired or was revoked: ask the person for a new one.</p> : <ErrorMessage error={shared.error} />}
      {shared.data ? (
        <section className="card" aria-labelledby="shared-h">
          <h2 id="shared-h">Shared details</h2>
          <Fields value={objectOf(shared.data.data)} label="Shared details" />
        </section>
      ) : null}
    </>
  );
}
