import { SERPAPI_SECRET } from './google.case';
import type { WebToolCase } from './web-tool-case';

export const GOOGLE_SCHOLAR_CASE: WebToolCase = {
  component: 'GoogleScholar',
  envName: 'GOOGLESCHOLAR',
  key: { provider: 'serpapi', secret: SERPAPI_SECRET },
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/search.json`, (req) =>
      req.query['api_key'] !== SERPAPI_SECRET
        ? {
            status: 401,
            json: {
              error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key',
            },
          }
        : {
            json: {
              search_metadata: { id: 'e2e-scholar', status: 'Success', total_time_taken: 0.7 },
              search_parameters: { engine: req.query['engine'], q: req.query['q'], hl: 'en' },
              search_information: { organic_results_state: 'Results for exact spelling', total_results: 1 },
              organic_results: [
                {
                  position: 0,
                  title: `A study of ${req.query['q']}`,
                  result_id: 'e2eResult01',
                  link: 'https://example.org/papers/1',
                  snippet: `We examine ${req.query['q']} in depth.`,
                  publication_info: {
                    summary: 'A Researcher, B Scholar - Journal of Examples, 2021 - example.org',
                  },
                  inline_links: { cited_by: { total: 42, cites_id: '123' } },
                },
              ],
            },
          },
    ),
  params: { top_n: 5, sort_by: 'relevance', patents: true },
  prompt: 'Photosynthesis',
  expected: [
    'A study of Photosynthesis',
    'author: A Researcher,B Scholar',
    'Abstract: We examine Photosynthesis in depth.',
  ],
  agent: { args: { query: 'Mitochondria' }, reads: 'We examine Mitochondria in depth.' },
};
