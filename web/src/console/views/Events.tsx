// Privacy events: where the tenant's events go (subscriptions), what became of each delivery, and which recipients
// confirmed a person's erasure. Each part has its own address: /console/events, /events/deliveries, /events/erasures.
import { useNavigate } from 'react-router';
import { EventSubscriptions } from './EventSubscriptions';
import { EventDeliveries } from './EventDeliveries';
import { Erasures } from './Erasures';

const TABS = ['Subscriptions', 'Deliveries', 'Erasures'] as const;
type Tab = (typeof TABS)[number];

const pathOf = (t: Tab) => (t === 'Subscriptions' ? '/events' : `/events/${t.toLowerCase()}`);

export function Events({ tab: tabSlug }: { tab?: string | undefined }) {
  const navigate = useNavigate();
  const tab = TABS.find((t) => t.toLowerCase() === tabSlug) ?? 'Subscriptions';
  const setTab = (t: Tab) => void navigate(pathOf(t));
  return (
    <>
      <h1>Privacy events</h1>
      <p>
        The vault tells other systems (a CRM, a warehouse, a mailing tool) when a person is created, changed or erased, when consent changes and when requests are decided.
        Events carry tokens, ids and field names, never personal values. Recipients of an erasure confirm that they erased the person too.
      </p>
      <div className="tabs" role="tablist" aria-label="Parts of privacy events">
        {TABS.map((t) => (
          <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={tab === t} aria-controls="events-panel" tabIndex={tab === t ? 0 : -1} onClick={() => setTab(t)} onKeyDown={(e) => moveTab(e.key, t, setTab)}>
            {t}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="events-panel" aria-labelledby={`tab-${tab}`}>
        {tab === 'Subscriptions' ? <EventSubscriptions /> : tab === 'Deliveries' ? <EventDeliveries /> : <Erasures />}
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
