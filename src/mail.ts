import nodemailer from 'nodemailer';
import type { Config } from './config.js';

/**
 * Email, for the one thing the website sends: password reset links. Through nodemailer to the mail
 * server of SMTP_URL; without it there is no mailer and nothing is sent (the operator prints links
 * with `cardbazaar user reset-link NAME`).
 */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

export function createMailer(config: Config): Mailer | undefined {
  if (!config.smtpUrl) return undefined;
  const transport = nodemailer.createTransport(config.smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from: config.mailFrom, ...message });
    },
    close() {
      transport.close();
    },
  };
}
