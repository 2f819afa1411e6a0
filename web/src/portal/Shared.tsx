// A shared record as its recipient sees it, with no sign-in: /portal/shared/<uuid> reads the shared fields with the
// public SharedRecordGet and shows them read-only. The link carries the expiry the person chose (`?expires=`, Unix
// seconds) because SharedRecordGet answers only the data; the vault enforces the expiry whatever the link says.
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { ApiError, call, objectOf } from '../api/client';
import { ErrorMessage, Fields, Loading } from '../shared/ui';
import { formatTime } from '../shared/session';

export function SharedView({ recorduuid }: { recorduuid: string }) {
  const [params] = useSearchParams();
  const expires = Number(params.get('expires'));
  const shared = useQuery({ queryKey: ['shared', recorduuid], queryFn: () => call('SharedRecordGet', { recorduuid }, {}) });
  const gone = shared.error instanceof ApiError && (shared.error.httpStatus === 404 || shared.error.httpStatus === 400);
  return (
    <>
      <h1>Data shared with you</h1>
      <p>Someone chose to show you these details from the record this organisation keeps about them. They are read-only, and the link stops working when it expires or when they revoke it.</p>
      {expires > 0 ? <p>Valid until {formatTime(expires)}.</p> : null}
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
