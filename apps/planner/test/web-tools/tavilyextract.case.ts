import type { WebToolCase } from './web-tool-case';

const SECRET = 'tvly-e2e-extract-key';

export const TAVILY_EXTRACT_CASE: WebToolCase = {
  component: 'TavilyExtract',
  envName: 'TAVILYEXTRACT',
  key: { provider: 'tavily', secret: SECRET },
  routes: (s, prefix) =>
    s.on('POST', `/${prefix}/extract`, (req) => {
      if (req.headers.authorization !== `Bearer ${SECRET}`) {
        return { status: 401, json: { detail: { error: 'Unauthorized: missing or invalid API key.' } } };
      }
      const { urls } = JSON.parse(req.body) as { urls: string[] };
      return {
        json: {
          results: urls.map((url) => ({
            url,
            raw_content: `# Page\n\nThe extracted text of ${url}`,
            images: [],
          })),
          failed_results: [],
          response_time: 0.31,
          request_id: 'e2e-extract',
        },
      };
    }),
  // The URLs are the run's prompt.
  params: { urls: '{sys.query}', extract_depth: 'basic', format: 'markdown' },
  prompt: 'https://example.com/honey',
  output: 'json',
  expected: ['The extracted text of https://example.com/honey'],
  agent: {
    args: { urls: ['https://example.com/bees'] },
    reads: 'The extracted text of https://example.com/bees',
  },
};
