// The log formats: JSON exactly as pino writes it with the one shape, and the readable line, which shows every field
// of any record, never throws, and keeps one record on one line whatever a value holds (a log-injection oracle).
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { colourFor, createLog, logFormat, logOptions, prettyLine, prettyRecord } from '../../../proto/log.js';

/** A destination that keeps what it is given. */
function capture(isTTY = false) {
  const lines: string[] = [];
  return { lines, out: { isTTY, write: (text: string) => lines.push(text) } };
}

/** What may end a line or disguise one: C0 and C1 controls, line and paragraph separators, bidi overrides. */
// oxlint-disable-next-line no-control-regex -- control characters are exactly what the line must not hold
const BREAKING = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The line without its final newline and without the colour codes the formatter itself puts around a level. */
// oxlint-disable-next-line no-control-regex -- the colour codes are escape sequences
const body = (line: string) => line.replace(/\n$/, '').replace(/\x1b\[\d+m/g, '');

/** Strings rich in what breaks lines and terminals, beside ordinary ones. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: fc.constantFrom('\n', '\r', '\t', '\x1b', '[', '3', '1', 'm', '\x00', '\x7f', '\x85', '\x9b', '\u2028', '\u2029', '\u202e', '=', ' ', '"', '\\', 'a', 'é', '{') }),
);
const records = fc.dictionary(nasty, fc.oneof(nasty, fc.jsonValue()), { maxKeys: 8 });

/** The forms a field may take on the line: key and value bare, or as JSON (strings quoted). */
function forms(value: unknown): string[] {
  const json = (JSON.stringify(value) ?? '').replace(/[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return typeof value === 'string' ? [value, json] : [json];
}

describe('the JSON format', () => {
  it('is what pino writes with the one shape, unchanged', () => {
    const made = capture();
    const plain = capture();
    createLog('api', 'info', 'json', made.out).info({ tenantId: 3, err: { type: 'Error' } }, 'a message');
    pino(logOptions('api', 'info'), plain.out).info({ tenantId: 3, err: { type: 'Error' } }, 'a message');
    expect(made.lines).toHaveLength(1);
    const [a, b] = [JSON.parse(made.lines[0]!), JSON.parse(plain.lines[0]!)];
    expect(Object.keys(a)).toEqual(['level', 'time', 'component', 'tenantId', 'err', 'msg']);
    expect({ ...a, time: 0 }).toEqual({ ...b, time: 0 });
    expect(made.lines[0]!.replace(/"time":\d+/, '')).toBe(plain.lines[0]!.replace(/"time":\d+/, ''));
  });
});

describe('the format chosen', () => {
  it('is the one asked for, else pretty on a terminal and JSON elsewhere', () => {
    expect(logFormat(undefined, true)).toBe('pretty');
    expect(logFormat(undefined, false)).toBe('json');
    expect(logFormat(undefined, undefined)).toBe('json');
    expect(logFormat('', true)).toBe('pretty');
    expect(logFormat('json', true)).toBe('json');
    expect(logFormat('pretty', false)).toBe('pretty');
  });

  it('colours levels on a terminal only, and not with NO_COLOR', () => {
    expect(colourFor({ isTTY: true }, {})).toBe(true);
    expect(colourFor({ isTTY: false }, {})).toBe(false);
    expect(colourFor({}, {})).toBe(false);
    expect(colourFor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
  });
});

describe('the readable format', () => {
  it('reads as time, level, component, message and fields', () => {
    const time = new Date(2026, 10, 27, 20, 58, 1).getTime();
    const line = prettyRecord({ level: 'info', time, component: 'api', msg: 'tokenizer listening', tenantId: 3, socket: '/run/t.sock', err: { type: 'Error' } }, false);
    expect(line).toBe('20:58:01 INFO  api        tokenizer listening tenantId=3 socket=/run/t.sock err={"type":"Error"}\n');
    expect(prettyRecord({ level: 'error', time, component: 'api', msg: 'x' }, true)).toContain('\x1b[31mERROR\x1b[0m');
    expect(prettyRecord({ level: 'error', time, component: 'api', msg: 'x' }, false)).not.toContain('\x1b');
  });

  it('writes what a logger logs, one readable line per record', () => {
    const { lines, out } = capture(true);
    const log = createLog('tokenizer', 'info', 'pretty', out);
    log.info({ socket: '/tmp/s' }, 'listening');
    log.debug('not at this level');
    expect(lines).toHaveLength(1);
    // oxlint-disable-next-line no-control-regex -- the colour codes are escape sequences
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d \x1b\[32mINFO \x1b\[0m tokenizer  listening socket=\/tmp\/s\n$/);
  });

  it('shows every key and value of any record', () => {
    fc.assert(
      fc.property(records, fc.boolean(), (record, colour) => {
        const line = prettyRecord(record, colour);
        for (const [k, v] of Object.entries(record)) {
          const shownInPlace = (k === 'level' || k === 'component' || k === 'msg') && typeof v === 'string';
          if (shownInPlace) {
            const text = k === 'level' ? v.toUpperCase() : v;
            expect(forms(text).some((f) => line.includes(f)), `${k} in ${line}`).toBe(true);
            continue;
          }
          if (k === 'time' && typeof v === 'number' && Number.isFinite(v)) continue;
          const found = forms(k).some((kf) => forms(v).some((vf) => line.includes(`${kf}=${vf}`)));
          expect(found, `${JSON.stringify(k)}=${JSON.stringify(v)} in ${JSON.stringify(line)}`).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps each record on one line, with nothing that could end it or disguise it', () => {
    fc.assert(
      fc.property(records, fc.boolean(), (record, colour) => {
        const line = prettyRecord(record, colour);
        expect(line.endsWith('\n')).toBe(true);
        expect(body(line)).not.toMatch(BREAKING);
        // Through pino too: a logger given the same fields writes one line.
        const { lines, out } = capture(colour);
        createLog('api', 'info', 'pretty', out).info(record, typeof record.msg === 'string' ? record.msg : 'm');
        expect(lines).toHaveLength(1);
        expect(body(lines[0]!)).not.toMatch(BREAKING);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, on any text pino or anything else could hand it', () => {
    fc.assert(
      fc.property(fc.oneof(nasty, fc.json(), records.map((r) => JSON.stringify(r))), fc.boolean(), (text, colour) => {
        const line = prettyLine(text, colour);
        expect(body(line)).not.toMatch(BREAKING);
        expect(line.indexOf('\n')).toBe(line.length - 1);
      }),
      { numRuns: 1000 },
    );
    // Not from a JSON line, but a logger is never the thing that throws.
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => prettyRecord({ big: 10n, cycle, fn: () => 1, sym: Symbol('s'), nothing: undefined }, false)).not.toThrow();
  });

  it('cannot be made to forge a second record from a value', () => {
    const forged = prettyRecord({ level: 'info', time: 0, component: 'api', msg: 'login\n00:00:00 INFO  api        admin signed in', who: 'x\r\x1b[2K00:00:00 INFO' }, true);
    expect(forged.split('\n')).toHaveLength(2);
    expect(body(forged)).not.toMatch(BREAKING);
    expect(forged).toContain('"login\\n00:00:00 INFO  api        admin signed in"');
  });
});
