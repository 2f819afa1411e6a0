// Audit records as RFC 5424 syslog messages, sent octet-counted (RFC 6587) over one TCP or TLS connection, and read
// back from a receiver's file by the offline verifier. A message is printable US-ASCII only: its JSON escapes every
// other character (\uXXXX), so no receiver's escaping of control or 8-bit characters changes it, a message is always
// one line in a file, and no BOM is needed (RFC 5424 asks for one only before a UTF-8 MSG).
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { recordOf, toJson, type ExportRecord } from './record.js';
import { fromOcsf, toOcsf } from './ocsf.js';

/** log audit (RFC 5424 facility 13). */
const FACILITY = 13;
/** The structured data's id: `strongroom` under our private enterprise number. */
const SD_ID = 'strongroom@32473';

/** How a record becomes a message: the header's names, and the MSG as our JSON or as OCSF. */
export interface SyslogFormat {
  hostname: string;
  appName: string;
  format: 'json' | 'ocsf';
}

/**
 * A record as one RFC 5424 message: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME - MSGID [strongroom@32473 tenant seq] MSG`.
 * PRI is log audit with info (an ok event), warning (a failed call's event) or notice (a checkpoint); TIMESTAMP is
 * the event's (or checkpoint's) own time in UTC; MSGID `event` or `checkpoint`. Throws on a hostname or app name
 * RFC 5424 forbids (they come from configuration: printable ASCII without spaces, at most 255 and 48 characters).
 */
export function formatSyslog(r: ExportRecord, o: SyslogFormat): string {
  const severity = r.kind === 'checkpoint' ? 5 : r.kind === 'skipped' || r.status === 'ok' ? 6 : 4;
  const seconds = r.kind === 'checkpoint' ? r.line.time : r.when;
  const seq = r.kind === 'checkpoint' ? r.line.seq : r.seq;
  const time = new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
  const sd = `[${SD_ID} tenant="${sdValue(String(r.tenant))}" seq="${sdValue(String(seq))}"]`;
  const body = o.format === 'json' ? toJson(r) : JSON.stringify(toOcsf(r));
  return `<${FACILITY * 8 + severity}>1 ${time} ${headerName(o.hostname, 255)} ${headerName(o.appName, 48)} - ${r.kind} ${sd} ${asciiJson(body)}`;
}

/** RFC 6587 octet counting: the message's length in bytes, a space, the message. */
export function frame(msg: string): Buffer {
  const body = Buffer.from(msg, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}

/**
 * The record in one line of a receiver's file: a whole RFC 5424 message (a `%rawmsg%` template), or a template's
 * own fields followed by the MSG (`%TIMESTAMP% %HOSTNAME% ... %msg%`). Null for a line that carries none of ours.
 */
export function parseSyslogLine(line: string): ExportRecord | null {
  const text = line.replace(/[\r\n]+$/, '');
  const msg = rfc5424Msg(text);
  if (msg !== null) return recordOfMsg(msg);
  // The MSG is the line's last field: the first `{` after a space from which the rest parses as one of ours.
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
    if (i > 0 && text[i - 1] !== ' ') continue;
    const r = recordOfMsg(text.slice(i));
    if (r) return r;
  }
  return null;
}

function recordOfMsg(msg: string): ExportRecord | null {
  let v: unknown;
  try {
    v = JSON.parse(msg.replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  return recordOf(v) ?? fromOcsf(v);
}

/** The MSG of a whole RFC 5424 message (after its header and structured data); null if the text is not one. */
function rfc5424Msg(text: string): string | null {
  const head = /^<\d{1,3}>1 \S+ \S+ \S+ \S+ \S+ /.exec(text);
  if (!head) return null;
  let i = head[0].length;
  if (text[i] === '-') i += 1;
  else {
    while (text[i] === '[') {
      let quoted = false;
      for (i += 1; i < text.length && (quoted || text[i] !== ']'); i += 1) {
        if (quoted && text[i] === '\\') i += 1;
        else if (text[i] === '"') quoted = !quoted;
      }
      if (i >= text.length) return null;
      i += 1;
    }
  }
  if (i === text.length) return '';
  return text[i] === ' ' ? text.slice(i + 1) : null;
}

/** An SD-PARAM value: `"`, `\` and `]` escaped with a backslash (RFC 5424 6.3.3). */
function sdValue(v: string): string {
  return v.replace(/["\\\]]/g, '\\$&');
}

function headerName(v: string, max: number): string {
  if (!/^[\x21-\x7e]+$/.test(v) || v.length > max) throw new RangeError(`a syslog header name must be 1 to ${max} printable ASCII characters`);
  return v;
}

/** JSON text with every character past printable ASCII escaped (same value, ASCII bytes only). */
function asciiJson(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Where a SyslogSink sends, and how long one send may take (connecting included). */
export interface SyslogSinkOptions {
  host: string;
  port: number;
  /** TLS (RFC 5425) when set: `ca` PEM to trust, `servername` to check, a client `cert` and `key` PEM for mutual TLS. */
  tls?: { ca?: string; servername?: string; cert?: string; key?: string; rejectUnauthorized?: boolean };
  timeoutMs: number;
}

/**
 * Sends syslog messages, octet-counted, on one persistent TCP or TLS connection, opened at the first send and opened
 * again after any error. A send resolves once the socket has flushed its messages to the operating system: TCP
 * syslog has no acknowledgement, so the caller resends from its cursor after a failure and receivers de-duplicate by
 * tenant and seq. A send rejects on a failed connect, a socket error or close, or its deadline: it never hangs.
 */
export class SyslogSink {
  private socket: Socket | null = null;
  /** Sends run one at a time, in order, on the one connection. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: SyslogSinkOptions) {}

  /** Frames and writes `messages` (formatSyslog's) in one write. */
  send(messages: string[]): Promise<void> {
    const mine = this.turn.then(() => this.deliver(Buffer.concat(messages.map(frame))));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  /**
   * Confirms what was sent since the last confirmation: ends the connection and waits for the receiver to close its
   * side, which it does once it has read everything up to the end. TCP syslog has no acknowledgement of its own:
   * bytes the socket flushed may still die unread in a receiver that stalls or goes away. Rejects (the sender then
   * sends again from its cursor) when the receiver does not close in time, or the connection fails.
   */
  async confirm(): Promise<void> {
    await this.turn;
    const s = this.socket;
    this.socket = null;
    if (!s) return;
    if (s.destroyed) throw new Error(`syslog connection to ${this.o.host}:${this.o.port} was lost before its messages were confirmed`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`syslog receiver ${this.o.host}:${this.o.port} did not confirm within ${this.o.timeoutMs} ms`));
      }, this.o.timeoutMs);
      s.once('error', () => undefined);
      s.once('close', (hadError: boolean) => {
        clearTimeout(timer);
        if (hadError) reject(new Error(`syslog connection to ${this.o.host}:${this.o.port} failed before its messages were confirmed`));
        else resolve();
      });
      s.end();
    });
  }

  /** Ends the connection once written data is flushed (destroys it if that takes longer than the deadline). */
  async close(): Promise<void> {
    await this.turn;
    const s = this.socket;
    this.socket = null;
    if (!s || s.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => s.destroy(), this.o.timeoutMs);
      s.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      s.end();
    });
  }

  private async deliver(data: Buffer): Promise<void> {
    if (data.length === 0) return;
    // A receiver that went away since the last send has closed the connection: let its close be seen first, or the
    // write would succeed into the dead connection's buffer and the messages be lost without an error.
    if (this.socket) await new Promise((r) => setImmediate(r));
    let current: Socket | null = this.socket;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        current?.destroy();
        reject(new Error(`syslog send to ${this.o.host}:${this.o.port} timed out after ${this.o.timeoutMs} ms`));
      }, this.o.timeoutMs);
    });
    try {
      await Promise.race([
        (async () => {
          current ??= await this.open((s) => (current = s));
          await write(current, data);
        })(),
        deadline,
      ]);
    } catch (e) {
      if (current && this.socket === current) this.socket = null;
      current?.destroy();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Connects (TLS when configured); `started` is told the socket at once, so a deadline can destroy it. */
  private open(started: (s: Socket) => void): Promise<Socket> {
    const { host, port, tls } = this.o;
    return new Promise((resolve, reject) => {
      const s: Socket = tls ? tlsConnect({ host, port, ...tls }) : tcpConnect({ host, port });
      started(s);
      const closed = () => reject(new Error(`syslog connection to ${host}:${port} closed`));
      s.once('error', reject);
      s.once('close', closed);
      s.once(tls ? 'secureConnect' : 'connect', () => {
        s.off('error', reject).off('close', closed);
        s.setNoDelay(true);
        s.setKeepAlive(true, 30_000);
        const drop = () => {
          if (this.socket === s) this.socket = null;
          s.destroy();
        };
        // The receiver sends nothing: reading only notices its close. Errors between sends drop the connection.
        s.on('data', () => undefined).on('end', drop).on('error', drop).on('close', drop);
        this.socket = s;
        resolve(s);
      });
    });
  }
}

/** Writes `data`, settling once it is flushed, or on the socket's error or close, whichever comes first. */
function write(s: Socket, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const closed = () => reject(new Error('syslog connection closed'));
    s.once('close', closed);
    s.write(data, (err) => {
      s.off('close', closed);
      if (err) reject(err);
      else resolve();
    });
  });
}
