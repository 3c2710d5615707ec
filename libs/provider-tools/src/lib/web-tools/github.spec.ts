import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { GITHUB } from './github';
import type { WebToolCall } from './web-tool';

// GitHub against a local server answering the REST API's repository search in its documented shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey?: string): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...GITHUB.defaults, ...params },
  ...(apiKey ? { apiKey } : {}),
});

const repo = (id: number, name: string, description: string | null, stars: number) => ({
  id,
  node_id: `MDEwOlJlcG9zaXRvcnk${id}`,
  name,
  full_name: `octo/${name}`,
  owner: { login: 'octo', id: 1, type: 'Organization' },
  private: false,
  html_url: `https://github.com/octo/${name}`,
  description,
  fork: false,
  url: `https://api.github.com/repos/octo/${name}`,
  created_at: '2020-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  pushed_at: '2024-01-01T00:00:00Z',
  stargazers_count: stars,
  watchers_count: stars,
  language: 'Python',
  forks_count: 10,
  open_issues_count: 2,
  default_branch: 'main',
  score: 1,
  watchers: stars,
  forks: 10,
  open_issues: 2,
  topics: ['rag'],
  visibility: 'public',
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/search/repositories', (req) =>
      req.query['q'] === 'in:name'
        ? {
            status: 422,
            json: {
              message: 'Validation Failed',
              errors: [{ resource: 'Search', field: 'q', code: 'missing' }],
              documentation_url: 'https://docs.github.com/v3/search',
              status: '422',
            },
          }
        : {
            json: {
              total_count: 2,
              incomplete_results: false,
              items: [repo(1, 'ragflow', 'An open-source RAG engine', 70000), repo(2, 'ragkit', null, 12)],
            },
          },
    )
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('GitHub', () => {
  it('searches repositories by stars with top_n, renders name, URL, description and stars', async () => {
    const r = await GITHUB.call(call({ top_n: 2 }), { query: 'rag engine' });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/search/repositories');
    expect(req.query).toEqual({ q: 'rag engine', sort: 'stars', order: 'desc', per_page: '2' });
    expect(req.headers['accept']).toBe('application/vnd.github+json');
    expect(req.headers['x-github-api-version']).toBe('2022-11-28');
    expect(req.headers['authorization']).toBeUndefined();
    const text = r.outputs['formalized_content'] as string;
    expect(text).toContain('URL: https://github.com/octo/ragflow');
    expect(text).toContain('An open-source RAG engine\n stars:70000');
    expect(text).toContain('None\n stars:12');
    expect(text.indexOf('ragflow')).toBeLessThan(text.indexOf('ragkit'));
    expect((r.outputs['json'] as { full_name: string }[]).map((i) => i.full_name)).toEqual([
      'octo/ragflow',
      'octo/ragkit',
    ]);
    expect(r.answer).toBe(text);
  });

  it("sends the tenant's github key as a bearer token", async () => {
    await GITHUB.call(call({}, 'ghp_secret'), { query: 'rag' });
    const req = standIn.requests.at(-1)!;
    expect(req.headers['authorization']).toBe('Bearer ghp_secret');
    expect(req.query['per_page']).toBe('10');
  });

  it('answers an empty query with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await GITHUB.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it("fails with GitHub's refusal, and refuses a top_n that is not a positive integer", async () => {
    const failure = GITHUB.call(call(), { query: 'in:name' });
    await expect(failure).rejects.toThrow(ProviderException);
    await expect(failure).rejects.toMatchObject({ code: ProviderErrorCode.BadResponse });
    await expect(failure).rejects.toThrow('Validation Failed');
    await expect(GITHUB.call(call({ top_n: -1 }), { query: 'x' })).rejects.toThrow('GitHub: top_n');
  });
});
