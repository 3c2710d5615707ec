import type { WebToolCase } from './web-tool-case';

const SECRET = 'ghp_web-tools-e2e-token';

export const GITHUB_CASE: WebToolCase = {
  component: 'GitHub',
  envName: 'GITHUB',
  key: { provider: 'github', secret: SECRET },
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/search/repositories`, (req) =>
      req.headers['authorization'] !== `Bearer ${SECRET}`
        ? {
            status: 401,
            json: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
          }
        : {
            json: {
              total_count: 1,
              incomplete_results: false,
              items: [
                {
                  id: 1,
                  name: `${req.query['q']}-toolkit`,
                  full_name: `octo/${req.query['q']}-toolkit`,
                  owner: { login: 'octo', id: 7, type: 'Organization' },
                  private: false,
                  html_url: `https://github.com/octo/${req.query['q']}-toolkit`,
                  description: `Tools for ${req.query['q']}`,
                  fork: false,
                  stargazers_count: 4321,
                  watchers_count: 4321,
                  watchers: 4321,
                  forks: 12,
                  open_issues: 3,
                  language: 'Python',
                  default_branch: 'main',
                  score: 1,
                },
              ],
            },
          },
    ),
  params: { top_n: 5 },
  prompt: 'Photosynthesis',
  expected: ['Photosynthesis-toolkit', 'Tools for Photosynthesis', 'stars:4321'],
  agent: { args: { query: 'Mitochondria' }, reads: 'Tools for Mitochondria' },
};
