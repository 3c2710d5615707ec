import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode } from '../provider.exception';
import { CRAWLER } from './crawler';
import type { WebToolCall } from './web-tool';

// Crawler against a local web site: an article page among a site's header, menu, ads and footer.

const ARTICLE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>How Bees Make Honey | Nature Notes</title>
  <style>body { font-family: serif; } .ad { color: red; }</style>
  <script>window.tracker = { page: 'bees' };</script>
</head>
<body>
  <header class="site-header">
    <a href="/">Nature Notes</a>
    <nav><ul><li><a href="/birds">Birds</a></li><li><a href="/insects">Insects</a></li><li><a href="/about">About</a></li></ul></nav>
  </header>
  <main>
    <article>
      <h1>How Bees Make Honey</h1>
      <p class="byline">By Jane Doe, 6 May 2024</p>
      <p>Honey begins as nectar, a sugary liquid that forager bees collect from flowers with their long tongues.
        A single bee visits hundreds of flowers on one trip and stores the nectar in a special honey stomach.</p>
      <h2>From nectar to honey</h2>
      <p>Back at the hive the forager passes the nectar to house bees, who chew it and add enzymes that break
        complex sugars into simpler ones. The bees then spread it through the <a href="/honeycomb">honeycomb</a>,
        where water evaporates and the nectar thickens into honey.</p>
      <ul>
        <li>Enzymes split sucrose into glucose and fructose.</li>
        <li>Fanning wings dry the nectar to about 18% water.</li>
      </ul>
      <p>Finally the bees seal each cell with a wax cap, keeping the honey clean for the winter months when no
        flowers bloom and the colony depends on its stores to survive.</p>
    </article>
    <aside class="ad">Buy our bee-themed mugs today! Free shipping on orders over $20.</aside>
  </main>
  <footer>© 2024 Nature Notes · <a href="/privacy">Privacy</a></footer>
  <script>document.write('tracking pixel');</script>
</body>
</html>`;

const html = (text: string) => ({ text, headers: { 'Content-Type': 'text/html; charset=utf-8' } });

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, allow = '127.0.0.1'): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: allow })),
  // The crawler fetches the given URL itself: the base URL plays no part.
  baseUrl: 'https://example.invalid',
  params: { ...CRAWLER.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/notes/bees', html(ARTICLE))
    .on('GET', '/old/bees', { status: 301, text: '', headers: { Location: '/notes/bees' } })
    .on('GET', '/notes/honey.txt', { text: 'Honey never spoils.' })
    .on('GET', '/notes/huge', html(`<p>${'a'.repeat(5 * 1024 * 1024)}</p>`))
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('Crawler', () => {
  it('writes the article as Markdown, without the menu, ads, scripts and footer', async () => {
    const r = await CRAWLER.call(call(), { query: `${standIn.url}/notes/bees` });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', path: '/notes/bees' });
    const md = r.outputs['formalized_content'] as string;
    expect(md).toMatch(/^# How Bees Make Honey/);
    expect(md).toContain('## From nectar to honey');
    expect(md).toContain(`[honeycomb](${standIn.url}/honeycomb)`);
    expect(md).toMatch(/^-\s+Enzymes split sucrose into glucose and fructose\.$/m);
    for (const noise of [
      'Insects',
      'bee-themed mugs',
      'tracker',
      'tracking pixel',
      'Privacy',
      'font-family',
    ]) {
      expect(md).not.toContain(noise);
    }
    expect(r.answer).toBe(md);
  });

  it('gives the cleaned article HTML or its plain text, following a redirect', async () => {
    const h = await CRAWLER.call(call({ extract_type: 'html' }), { query: `${standIn.url}/old/bees` });
    expect(standIn.requests.slice(-2).map((q) => q.path)).toEqual(['/old/bees', '/notes/bees']);
    expect(h.answer).toMatch(/<h2>From nectar to honey<\/h2>/);
    expect(h.answer).not.toContain('<script');
    const t = await CRAWLER.call(call({ extract_type: 'content' }), { query: `${standIn.url}/notes/bees` });
    expect(t.answer).toContain('Honey begins as nectar');
    expect(t.answer).not.toMatch(/<[a-z]/);
    const plain = await CRAWLER.call(call(), { query: `${standIn.url}/notes/honey.txt` });
    expect(plain.answer).toBe('Honey never spoils.');
  });

  it('answers an empty URL with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await CRAWLER.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it('refuses a URL that is not http(s), a private host not allowed, a bad extract_type and a huge page', async () => {
    await expect(CRAWLER.call(call(), { query: 'file:///etc/passwd' })).rejects.toMatchObject({
      code: ProviderErrorCode.InvalidInput,
      message: expect.stringContaining('URL not valid'),
    });
    await expect(CRAWLER.call(call(), { query: 'www.example.com' })).rejects.toMatchObject({
      code: ProviderErrorCode.InvalidInput,
    });
    const before = standIn.requests.length;
    await expect(CRAWLER.call(call({}, ''), { query: `${standIn.url}/notes/bees` })).rejects.toMatchObject({
      code: ProviderErrorCode.Network,
      message: expect.stringContaining('refusing to connect'),
    });
    expect(standIn.requests.length).toBe(before);
    await expect(
      CRAWLER.call(call({ extract_type: 'pdf' }), { query: `${standIn.url}/notes/bees` }),
    ).rejects.toThrow('extract_type');
    await expect(CRAWLER.call(call(), { query: `${standIn.url}/notes/huge` })).rejects.toMatchObject({
      code: ProviderErrorCode.BadResponse,
      message: expect.stringContaining('larger than'),
    });
  });
});
