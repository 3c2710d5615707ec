import { ProviderException } from '../provider.exception';
import { EMAIL } from './email';
import type { WebToolCall } from './web-tool';

// The checks before any connection (the SMTP conversation itself runs against a real SMTP server
// in graph-web-tools.e2e-spec).

const call = (params: Record<string, unknown>, vetHost?: (h: string) => Promise<string>): WebToolCall => ({
  fetch: () => Promise.reject(new Error('Email does not use HTTP')),
  baseUrl: EMAIL.defaultBaseUrl,
  params: { ...EMAIL.defaults, ...params },
  apiKey: 'secret',
  ...(vetHost ? { vetHost } : {}),
});
const complete = { smtp_server: 'smtp.example.com', email: 'bot@example.com', sender_name: 'Bot' };

describe('Email', () => {
  it('sends nothing without a recipient, as upstream (success false, empty answer)', async () => {
    const r = await EMAIL.call(call(complete), { to_email: '' });
    expect(r.outputs).toEqual({ success: false });
    expect(r.answer).toBe('');
  });

  it.each(['smtp_server', 'email', 'sender_name'])('names a missing %s', async (name) => {
    const p = promiseError(EMAIL.call(call({ ...complete, [name]: '' }), { to_email: 'a@example.com' }));
    expect((await p).message).toBe(`Email: ${name} must be set`);
  });

  it('refuses a server the address guard refuses, without connecting', async () => {
    const vet = () =>
      Promise.reject(new Error('refusing to connect to smtp.example.com: 10.0.0.1 is private'));
    const err = await promiseError(EMAIL.call(call(complete, vet), { to_email: 'a@example.com' }));
    expect(err).toBeInstanceOf(ProviderException);
    expect(err.message).toContain('refusing to connect');
  });
});

async function promiseError(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: Error) => e,
  );
}
