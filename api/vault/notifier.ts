// Delivers one-time login codes: by SMTP (nodemailer) when configured, else to the log, for development.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface Notifier {
  /** `to` is an email address or a phone number; `code` the six digits. */
  sendLoginCode(channel: 'email' | 'phone', to: string, code: string): Promise<void>;
}

export function createNotifier(opts: { smtpUrl: string | undefined; from: string; log: Logger }): Notifier {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async sendLoginCode(channel, to, code) {
        // No SMS gateway is configured with SMTP: codes for phones cannot be delivered and are not sent.
        if (channel !== 'email') {
          opts.log.warn('login code for a phone not sent: no SMS gateway configured');
          return;
        }
        await transport.sendMail({ from: opts.from, to, subject: 'Your login code', text: `Your login code is ${code}. It is valid for 60 seconds.` });
      },
    };
  }
  return {
    async sendLoginCode(channel, _to, code) {
      // Development only (no STRONGROOM_SMTP_URL): the code goes to the log, the address never does.
      opts.log.warn({ channel, code }, 'login code (development notifier: set STRONGROOM_SMTP_URL to send it)');
    },
  };
}
