import type { WebToolCase } from './web-tool-case';

export const DUCKDUCKGO_CASE: WebToolCase = {
  component: 'DuckDuckGo',
  envName: 'DUCKDUCKGO',
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/`, (req) => ({
      headers: { 'Content-Type': 'application/x-javascript' },
      json: {
        Abstract: `${req.query['q']} is explained here.`,
        AbstractSource: 'Wikipedia',
        AbstractText: `${req.query['q']} is explained here.`,
        AbstractURL: `https://en.wikipedia.org/wiki/${req.query['q']}`,
        Answer: '',
        Definition: '',
        Entity: 'topic',
        Heading: `${req.query['q']} (instant answer)`,
        Image: '',
        Redirect: '',
        RelatedTopics: [
          {
            FirstURL: 'https://duckduckgo.com/Cell_biology',
            Icon: { Height: '', URL: '', Width: '' },
            Result: '<a href="https://duckduckgo.com/Cell_biology">Cell biology</a> The study of cells.',
            Text: 'Cell biology The study of cells.',
          },
        ],
        Results: [],
        Type: 'A',
      },
    })),
  params: { top_n: 5, channel: 'text' },
  prompt: 'Photosynthesis',
  expected: [
    'Photosynthesis (instant answer)',
    'Photosynthesis is explained here.',
    'Cell biology The study of cells.',
  ],
  agent: { args: { query: 'Mitochondria', channel: 'general' }, reads: 'Mitochondria is explained here.' },
};
