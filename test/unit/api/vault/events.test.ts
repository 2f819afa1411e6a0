// The vault's event hub: every handler of a name hears each emit of it, in the order handlers were added, and no
// other name's; a handler that throws fails the emit (as the direct call it replaces would).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Events, type VaultEvents } from '../../../../api/vault/events.js';

const NAMES: (keyof VaultEvents)[] = ['personRemoved', 'peopleLoaded', 'auditAppended', 'tenantUpgraded'];

describe('Events', () => {
  it('delivers each emit to exactly the handlers of its name, in order (fast-check)', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('on' as const), name: fc.constantFrom(...NAMES) }),
      fc.record({ kind: fc.constant('emit' as const), name: fc.constantFrom(...NAMES), n: fc.nat(100) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const events = new Events();
        const heard: string[] = [];
        const expected: string[] = [];
        const handlers: { name: string; id: number }[] = [];
        steps.forEach((s, id) => {
          if (s.kind === 'on') {
            handlers.push({ name: s.name, id });
            events.on(s.name, (e) => heard.push(`${id}:${JSON.stringify(e)}`));
          } else {
            const event = { tenantId: s.n, events: s.n, count: s.n } as never;
            for (const h of handlers) if (h.name === s.name) expected.push(`${h.id}:${JSON.stringify(event)}`);
            events.emit(s.name, event);
          }
        });
        expect(heard).toEqual(expected);
      }),
    );
  });

  it('lets a throwing handler fail the emit', () => {
    const events = new Events();
    events.on('tenantUpgraded', () => {
      throw new Error('no');
    });
    expect(() => events.emit('tenantUpgraded', { tenantId: 2 })).toThrow('no');
  });
});
