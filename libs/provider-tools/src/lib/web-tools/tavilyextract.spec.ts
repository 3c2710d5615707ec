import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { TAVILY_EXTRACT } from './tavilyextract';
import type { WebToolCall } from './web-tool';

// TavilyExtract against a local server answering Tavily's extract API in its documented shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey = 'tvly-key'): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  apiKey,
  params: { ...TAVILY_EXTRACT.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('POST', '/extract', (req) => {
      if (req.headers.authorization !== 'Bearer tvly-key') {
        return { status: 401, json: { detail: { error: 'Unauthorized: missing or invalid API key.' } } };
      }
      const { urls } = JSON.parse(req.body) as { urls: string[] };
      return {
        json: {
          results: urls
            .filter((u) => !u.includes('missing'))
            .map((url) => ({
              url,
              raw_content: `# Page at ${url}\n\nThe extracted text of the page.`,
              images: [],
              favicon: 'https://example.com/favicon.ico',
            })),
          failed_results: urls
            .filter((u) => u.includes('missing'))
            .map((url) => ({ url, error: 'Failed to fetch url' })),
          response_time: 0.42,
          request_id: '123e4567-e89b-12d3-a456-426614174111',
        },
      };
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('TavilyExtract', () => {
  it("posts the model's URLs with its depth and format and returns the results list", async () => {
    const r = await TAVILY_EXTRACT.call(call(), {
      urls: ['https://example.com/a', 'https://example.com/missing'],
      extract_depth: 'advanced',
      format: 'text',
    });
    const req = standIn.requests.at(-1)!;
    expect(req.headers.authorization).toBe('Bearer tvly-key');
    expect(JSON.parse(req.body)).toEqual({
      urls: ['https://example.com/a', 'https://example.com/missing'],
      extract_depth: 'advanced',
      format: 'text',
      include_images: false,
    });
    const json = r.outputs['json'] as { url: string; raw_content: string }[];
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({
      url: 'https://example.com/a',
      raw_content: expect.stringContaining('extracted text'),
    });
    expect(JSON.parse(r.answer)).toEqual(json);
  });

  it("splits a canvas's comma-separated URLs and takes the params' depth and format", async () => {
    await TAVILY_EXTRACT.call(call({ extract_depth: 'basic', format: 'markdown' }), {
      urls: 'https://example.com/a, https://example.com/b',
    });
    expect(JSON.parse(standIn.requests.at(-1)!.body)).toMatchObject({
      urls: ['https://example.com/a', 'https://example.com/b'],
      extract_depth: 'basic',
      format: 'markdown',
    });
  });

  it('answers no URLs with an empty list, without a call', async () => {
    const before = standIn.requests.length;
    const r = await TAVILY_EXTRACT.call(call(), { urls: '' });
    expect(r.outputs).toEqual({ json: [] });
    expect(r.answer).toBe('[]');
    expect(standIn.requests.length).toBe(before);
  });

  it('fails on a refused key and names a bad format', async () => {
    await expect(
      TAVILY_EXTRACT.call(call({}, 'wrong'), { urls: ['https://example.com/a'] }),
    ).rejects.toMatchObject({
      code: ProviderErrorCode.Unauthorized,
    });
    await expect(
      TAVILY_EXTRACT.call(call({ format: 'pdf' }), { urls: ['https://example.com/a'] }),
    ).rejects.toThrow(ProviderException);
    await expect(
      TAVILY_EXTRACT.call(call({ format: 'pdf' }), { urls: ['https://example.com/a'] }),
    ).rejects.toThrow('format');
  });
});
