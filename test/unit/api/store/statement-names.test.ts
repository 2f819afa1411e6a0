// A statement's span is named by its kind and first table, never by what its literals hold.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { statementName } from '../../../../api/store/statement-names.js';

describe('statement names', () => {
  it('are the kind and the first table, or the function a select calls', () => {
    expect(statementName('select u.* from "t_12".users u where u.email_hash = $1').summary).toBe('select users');
    expect(statementName('insert into t_3.audit_events (seq) values ($1)').summary).toBe('insert audit_events');
    expect(statementName('  UPDATE tokens set x = 1').summary).toBe('update tokens');
    expect(statementName('select "t_1".events_publish($1::jsonb, $2)').summary).toBe('select events_publish');
    expect(statementName('set local role "t_5_role"').summary).toBe('set');
    expect(statementName('commit')).toEqual({ summary: 'commit', operation: 'commit', table: undefined });
    expect(statementName('explode everything').summary).toBe('other');
  });

  it('never hold what a written-out literal, a comment or a dollar-quoted body says', () => {
    const word = fc.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/).map((w) => `zz${w}`);
    fc.assert(
      fc.property(word, fc.string(), (secret, noise) => {
        const texts = [
          `with v(a) as (values (${pg.escapeLiteral(`x from ${secret} ${noise}`)})) insert into users select a from v`,
          `select ${pg.escapeLiteral(`${noise}' from ${secret}`)} from audit_events`,
          `-- from ${secret}\nselect 1 from tokens`,
          `do $$ begin perform 1 from ${secret}; end $$`,
          `select ${pg.escapeLiteral(noise)} as a, ${pg.escapeLiteral(` into ${secret}`)}`,
        ];
        for (const text of texts) expect(JSON.stringify(statementName(text))).not.toContain(secret);
      }),
    );
  });
});
