// Bulk lists need an unlock UUID that lives 60 seconds: this asks for one and shows the time left.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { useVault } from './session';
import { text } from '../api/client';
import { ErrorMessage } from '../shared/ui';

const WINDOW_SECONDS = 60;

interface Unlock {
  uuid: string | null;
  secondsLeft: number;
  unlock(): Promise<void>;
  error: unknown;
  busy: boolean;
}

const UnlockContext = createContext<Unlock | null>(null);

export function UnlockProvider({ children }: { children: ReactNode }) {
  const vault = useVault();
  const [grant, setGrant] = useState<{ uuid: string; until: number } | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!grant) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [grant]);
  // A new tenant or token needs its own unlock.
  useEffect(() => setGrant(null), [vault.session.token, vault.session.tenant]);
  const unlock = useCallback(async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await vault.call('BulkListUnlock', {});
      // A little early, so a list is never asked for with a UUID that expires on the way.
      setGrant({ uuid: text(answer.unlockuuid), until: Date.now() + (WINDOW_SECONDS - 2) * 1000 });
      setNow(Date.now());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }, [vault]);
  const secondsLeft = grant ? Math.max(0, Math.ceil((grant.until - now) / 1000)) : 0;
  const value: Unlock = { uuid: grant && secondsLeft > 0 ? grant.uuid : null, secondsLeft, unlock, error, busy };
  return <UnlockContext.Provider value={value}>{children}</UnlockContext.Provider>;
}

export function useUnlock(): Unlock {
  const u = useContext(UnlockContext);
  if (!u) throw new Error('useUnlock outside UnlockProvider');
  return u;
}

/** The visible unlock window: a button while locked, the seconds left while open. */
export function UnlockBar({ what }: { what: string }) {
  const u = useUnlock();
  return (
    <div className="unlock" role="region" aria-label="Bulk list unlock">
      {u.uuid ? (
        <span>
          <strong>Unlocked</strong>: bulk lists open for <span aria-live="off">{u.secondsLeft}</span> more seconds.
        </span>
      ) : (
        <span>Bulk lists are locked. Unlocking opens {what} for 60 seconds and is audited.</span>
      )}
      <button type="button" className={u.uuid ? '' : 'primary'} onClick={() => void u.unlock()} disabled={u.busy}>
        {u.uuid ? 'Renew for 60 s' : 'Unlock for 60 s'}
      </button>
      <ErrorMessage error={u.error} />
    </div>
  );
}
