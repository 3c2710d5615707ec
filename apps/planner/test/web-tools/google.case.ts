import type { WebToolCase } from './web-tool-case';

// Google and GoogleScholar share the tenant's serpapi key.
export const SERPAPI_SECRET = 'serpapi-web-tools-e2e-key';

export const GOOGLE_CASE: WebToolCase = {
  component: 'Google',
  envName: 'GOOGLE',
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
              search_metadata: { id: 'e2e', status: 'Success', total_time_taken: 0.5 },
              search_parameters: {
                engine: req.query['engine'],
                q: req.query['q'],
                google_domain: req.query['google_domain'],
                gl: req.query['gl'],
                hl: req.query['hl'],
              },
              search_information: { organic_results_state: 'Results for exact spelling', total_results: 1 },
              organic_results: [
                {
                  position: 1,
                  title: `${req.query['q']} - Overview`,
                  link: 'https://example.com/overview',
                  displayed_link: 'https://example.com › overview',
                  snippet: `What Google knows about ${req.query['q']} (${req.query['gl']}).`,
                  source: 'Example',
                },
              ],
            },
          },
    ),
  params: { country: 'us', language: 'en' },
  prompt: 'Photosynthesis',
  expected: ['Photosynthesis - Overview', 'What Google knows about Photosynthesis (us).'],
  agent: { args: { q: 'Mitochondria' }, reads: 'What Google knows about Mitochondria (us).' },
};
