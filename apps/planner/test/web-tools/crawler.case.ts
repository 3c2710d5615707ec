import type { WebToolCase } from './web-tool-case';

// The page to crawl is the stand-in's: the spec puts its URL in place of STANDIN (prompt and args).
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>How Bees Make Honey</title><script>window.tracker = 1;</script></head>
<body>
  <nav><a href="/birds">Birds</a> <a href="/insects">Insects</a></nav>
  <article>
    <h1>How Bees Make Honey</h1>
    <p>Honey begins as nectar, a sugary liquid that forager bees collect from flowers with their long tongues.
      A single bee visits hundreds of flowers on one trip and stores the nectar in a special honey stomach.</p>
    <h2>From nectar to honey</h2>
    <p>Back at the hive house bees add enzymes and fan the nectar with their wings until it thickens into honey,
      then seal each cell with a wax cap to keep it for the winter months.</p>
  </article>
  <footer>© 2024 Nature Notes</footer>
</body>
</html>`;

export const CRAWLER_CASE: WebToolCase = {
  component: 'Crawler',
  envName: 'CRAWLER',
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/article`, {
      text: PAGE,
      headers: { 'Content-Type': 'text/html; charset=utf-8' },
    }),
  params: { extract_type: 'markdown' },
  prompt: 'STANDIN/crawler/article',
  expected: ['# How Bees Make Honey', 'Honey begins as nectar'],
  agent: { args: { query: 'STANDIN/crawler/article' }, reads: 'seal each cell with a wax cap' },
};
