// Delivers one-time login codes: email by SMTP (nodemailer), text messages through an HTTP webhook, or, in
// development (neither configured), to the log.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export type Channel = 'email' | 'phone';

export interface Notifier {
  /** The channels codes can be sent on: a login by any other is refused before any code is made. */
  readonly channels: ReadonlySet<Channel>;
  /** `to` is the email address or phone number stored in the profile; `code` the digits. */
  sendLoginCode(channel: Channel, to: string, code: string): Promise<void>;
}

const TEXT = (code: string) => `Your login code is ${code}. It is valid for 5 minutes.`;

export function createNotifier(opts: { smtpUrl: string | undefined; smsWebhookUrl: string | undefined; from: string; log: Logger }): Notifier {
  if (!opts.smtpUrl && !opts.smsWebhookUrl) {
    return {
      channels: new Set<Channel>(['email', 'phone']),
      async sendLoginCode(channel, _to, code) {
        // Development only: the code goes to the log, the address never does.
        opts.log.warn({ channel, code }, 'login code (development notifier: set STRONGROOM_SMTP_URL to send it)');
      },
    };
  }
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : undefined;
  const webhook = opts.smsWebhookUrl;
  const channels = new Set<Channel>();
  if (transport) channels.add('email');
  if (webhook) channels.add('phone');
  return {
    channels,
    async sendLoginCode(channel, to, code) {
      if (channel === 'email' && transport) {
        await transport.sendMail({ from: opts.from, to, subject: 'Your login code', text: TEXT(code) });
      } else if (channel === 'phone' && webhook) {
        // The SMS gateway's own adapter receives `{ to, text }` and answers 2xx once it has taken the message.
        const res = await fetch(webhook, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ to, text: TEXT(code) }),
          signal: AbortSignal.timeout(10_000),
        });
        if (!res.ok) throw new Error(`SMS webhook answered ${res.status}`);
      } else {
        throw new Error(`no ${channel} channel configured`);
      }
    },
  };
}
