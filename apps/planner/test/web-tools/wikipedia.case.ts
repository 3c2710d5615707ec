import type { WebToolCase } from './web-tool-case';

export const WIKIPEDIA_CASE: WebToolCase = {
  component: 'Wikipedia',
  envName: 'WIKIPEDIA',
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/w/api.php`, (req) => ({
      json: {
        batchcomplete: '',
        query: {
          pages: {
            '1': {
              pageid: 1,
              ns: 0,
              title: `About ${req.query['gsrsearch']}`,
              index: 1,
              extract: `${req.query['gsrsearch']} is a subject of the encyclopedia.`,
              fullurl: 'https://en.wikipedia.org/wiki/Subject',
            },
          },
        },
      },
    })),
  params: { top_n: 3, language: 'en' },
  prompt: 'Photosynthesis',
  expected: ['About Photosynthesis', 'Photosynthesis is a subject of the encyclopedia.'],
  agent: { args: { query: 'Mitochondria' }, reads: 'Mitochondria is a subject of the encyclopedia.' },
};
