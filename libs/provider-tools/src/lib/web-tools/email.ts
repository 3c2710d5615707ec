import nodemailer from 'nodemailer';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import type { WebToolSpec } from './web-tool';

const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v)).trim();

/** A send's failure as upstream words it: a login refused, a server not reached, any other SMTP error. */
function smtpFailure(err: unknown, server: string, port: number): ProviderException {
  const e = err as { code?: string; message?: string };
  if (e.code === 'EAUTH') {
    return new ProviderException(
      ProviderErrorCode.Unauthorized,
      'SMTP Authentication failed. Please check your SMTP username(email) and authorization code.',
    );
  }
  if (e.code === 'ECONNECTION' || e.code === 'ETIMEDOUT' || e.code === 'ESOCKET' || e.code === 'EDNS') {
    return new ProviderException(
      ProviderErrorCode.Unavailable,
      `Failed to connect to SMTP server ${server}:${port} (${e.message ?? e.code})`,
    );
  }
  return new ProviderException(
    ProviderErrorCode.BadResponse,
    `SMTP error occurred: ${e.message ?? String(err)}`,
  );
}

/**
 * RAGFlow agent/tools/email.py: an HTML mail to `to_email` (and `cc_email`, comma-separated) over
 * SMTP — implicit TLS on port 465, STARTTLS required on any other port, as upstream. The server,
 * port, sender and login name come from the params; the password is the tenant's `smtp` provider
 * key (the DSL's `password` is never used: a secret in a canvas is stored and shown in clear).
 * The server's address goes through the address guard like every provider host.
 */
export const EMAIL: WebToolSpec = {
  component: 'Email',
  functionName: 'email',
  envName: 'EMAIL',
  // Not an HTTP service: the params name the SMTP server.
  defaultBaseUrl: 'https://smtp.invalid',
  key: { provider: 'smtp', required: true },
  description:
    'The email is a method of electronic communication for sending and receiving information through the Internet. This tool helps users to send emails to one person or to multiple recipients with support for CC, BCC, file attachments, and markdown-to-HTML conversion.',
  parameters: {
    type: 'object',
    properties: {
      to_email: { type: 'string', description: 'The target email address.' },
      cc_email: {
        type: 'string',
        description: 'The other email addresses needs to be send to. Comma splited.',
      },
      content: { type: 'string', description: 'The content of the email.' },
      subject: { type: 'string', description: 'The subject/title of the email.' },
    },
    required: ['to_email'],
  },
  inputs: { to_email: '{sys.query}', cc_email: '', content: '', subject: '' },
  defaults: { smtp_server: '', smtp_port: 465, email: '', smtp_username: '', sender_name: '' },
  checks: { required: ['smtp_server', 'email', 'sender_name'], positiveInt: ['smtp_port'] },
  async call(ctx, args) {
    const to = text(args['to_email']);
    if (!to) {
      return { outputs: { success: false }, answer: '', summary: 'Email: no recipient, nothing sent' };
    }
    const server = text(ctx.params['smtp_server']);
    const from = text(ctx.params['email']);
    const senderName = text(ctx.params['sender_name']);
    for (const [name, value] of [
      ['smtp_server', server],
      ['email', from],
      ['sender_name', senderName],
    ] as const) {
      if (!value) {
        throw new ProviderException(ProviderErrorCode.InvalidInput, `Email: ${name} must be set`);
      }
    }
    const port = Number(ctx.params['smtp_port']);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      throw new ProviderException(ProviderErrorCode.InvalidInput, 'Email: smtp_port must be a port number');
    }
    if (!ctx.vetHost) {
      throw new Error('Email needs the address guard (vetHost)');
    }
    let address: string;
    try {
      address = await ctx.vetHost(server);
    } catch (err) {
      throw new ProviderException(ProviderErrorCode.Network, `Email: ${(err as Error).message}`);
    }
    const cc = text(args['cc_email']);
    const recipients = [
      to,
      ...(cc
        ? cc
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean)
        : []),
    ];
    const transport = nodemailer.createTransport({
      // The checked address, with the server's name for TLS: what was checked is what is reached.
      host: address,
      port,
      secure: port === 465,
      requireTLS: port !== 465,
      tls: { servername: server },
      auth: { user: text(ctx.params['smtp_username']) || from, pass: ctx.apiKey ?? '' },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    try {
      await transport.sendMail({
        from: { name: senderName, address: from },
        to,
        ...(cc ? { cc } : {}),
        subject: text(args['subject']) || 'No Subject',
        html: text(args['content']) || 'No content provided',
        envelope: { from, to: recipients },
      });
    } catch (err) {
      throw smtpFailure(err, server, port);
    } finally {
      transport.close();
    }
    // Upstream's tool returns `success` (True), which the model reads as text.
    return {
      outputs: { success: true },
      answer: 'True',
      summary: `Email: sent to ${recipients.length} recipient(s)`,
    };
  },
};
