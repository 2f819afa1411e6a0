// The erasure receipt, with no sign-in (an erased person cannot sign in): /portal/erasure-receipt asks the public
// ErasureReceiptGet, with the token and request uuid this browser kept (./receipt.ts), how many of the systems the
// organisation shares data with confirmed that they erased the person too. Counts and a time, nothing else.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError, call } from '../api/client';
import { ConfirmButton, Empty, ErrorMessage, Loading } from '../shared/ui';
import { formatTime } from '../shared/session';
import { forgetReceipt, receiptsHere, type ErasureReceipt } from './receipt';

export function ReceiptView() {
  const [receipts, setReceipts] = useState(receiptsHere);
  return (
    <>
      <h1>Erasure receipt</h1>
      <p>When you asked for your data to be erased, this browser kept a receipt (a reference number, not your data). It shows how many of the systems this organisation shares data with confirmed that they erased you too.</p>
      {receipts.length ? null : <Empty>This browser keeps no erasure receipt for this organisation. One is kept when you ask for erasure in this portal.</Empty>}
      {receipts.map((r) => (
        <ReceiptCard
          key={`${r.token}-${r.requestuuid}`}
          receipt={r}
          onForget={() => {
            forgetReceipt(r);
            setReceipts(receiptsHere());
          }}
        />
      ))}
      <p>
        <Link to="/">Back to sign-in</Link>
      </p>
    </>
  );
}

function ReceiptCard({ receipt, onForget }: { receipt: ErasureReceipt; onForget: () => void }) {
  const answer = useQuery({
    queryKey: ['receipt', receipt.token, receipt.requestuuid],
    queryFn: () => call('ErasureReceiptGet', { token: receipt.token, requestuuid: receipt.requestuuid }, {}),
    retry: false,
  });
  const notYet = answer.error instanceof ApiError && answer.error.httpStatus === 404;
  return (
    <section className="card" aria-labelledby={`receipt-${receipt.requestuuid}`}>
      <h2 id={`receipt-${receipt.requestuuid}`}>Erasure request {receipt.requestuuid.slice(0, 8)}</h2>
      {answer.isLoading ? <Loading what="your receipt" /> : null}
      {answer.data ? (
        <>
          <p className="receipt-count" role="status">
            Your erasure reached {Number(answer.data.confirmed)} of {Number(answer.data.total)} recipients.
          </p>
          <p>
            Your data was erased on {formatTime(answer.data.erasedtime)}. A recipient counts once it has confirmed that it erased your data too
            {Number(answer.data.confirmed) < Number(answer.data.total) ? '; the others were told and have not confirmed yet.' : '.'}
          </p>
        </>
      ) : null}
      {notYet ? (
        <p role="status">
          There is nothing to show yet. Your request may still be waiting for the organisation&apos;s decision, or it was withdrawn or refused; if it was carried out and no other system receives your data, no confirmation is owed.
        </p>
      ) : (
        <ErrorMessage error={answer.error} />
      )}
      <div className="actions">
        <button type="button" onClick={() => void answer.refetch()} disabled={answer.isFetching}>
          Check again
        </button>
        <ConfirmButton label="Forget this receipt" subject="in this browser" confirmLabel="Forget it" onConfirm={onForget}>
          <p>This browser will no longer keep the reference to your erasure request, and you will not be able to check it here again.</p>
        </ConfirmButton>
      </div>
    </section>
  );
}

/** On the sign-in page, when this browser keeps a receipt: the way to it. */
export function ReceiptLink() {
  const [kept] = useState(() => receiptsHere().length > 0);
  if (!kept) return null;
  return (
    <section className="card" aria-labelledby="receipt-link-h">
      <h2 id="receipt-link-h">Your erasure</h2>
      <p>
        You asked for erasure from this browser. <Link to="/erasure-receipt">See your erasure receipt</Link>: it needs no sign-in.
      </p>
    </section>
  );
}
