import type { WebToolCase } from './web-tool-case';

export const SEARXNG_CASE: WebToolCase = {
  component: 'SearXNG',
  envName: 'SEARXNG',
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/search`, (req) =>
      req.query['format'] !== 'json'
        ? { status: 403, text: 'Forbidden' }
        : {
            json: {
              query: req.query['q'],
              number_of_results: 0,
              results: [
                {
                  url: 'https://example.org/metasearch',
                  title: `${req.query['q']} on the web`,
                  content: `Aggregated results about ${req.query['q']}.`,
                  engine: 'duckduckgo',
                  engines: ['duckduckgo', 'brave'],
                  positions: [1],
                  score: 2,
                  category: 'general',
                },
              ],
              answers: [],
              corrections: [],
              infoboxes: [],
              suggestions: [],
              unresponsive_engines: [],
            },
          },
    ),
  // The canvas's searxng_url is ignored: SWITCHYARD_PROVIDER_URL_SEARXNG names the instance.
  params: { top_n: '5', searxng_url: 'http://localhost:4000' },
  prompt: 'Photosynthesis',
  expected: ['Photosynthesis on the web', 'Aggregated results about Photosynthesis.'],
  agent: { args: { query: 'Mitochondria' }, reads: 'Aggregated results about Mitochondria.' },
};
