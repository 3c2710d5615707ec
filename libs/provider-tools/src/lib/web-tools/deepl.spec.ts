import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode } from '../provider.exception';
import { DEEPL } from './deepl';
import type { WebToolCall } from './web-tool';

// DeepL against a local server answering POST /v2/translate in DeepL's documented JSON.

const KEY = '0a1b2c3d-0000-4000-8000-123456789abc:fx';

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey = KEY): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  apiKey,
  params: { ...DEEPL.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('POST', '/v2/translate', (req) =>
      req.headers['authorization'] !== `DeepL-Auth-Key ${KEY}`
        ? { status: 403, json: { message: 'Wrong endpoint. Use https://api.deepl.com' } }
        : { json: { translations: [{ detected_source_language: 'ZH', text: 'Good morning, world' }] } },
    )
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('DeepL', () => {
  it('posts the text with the languages and the key, and answers the translation', async () => {
    const r = await DEEPL.call(call({ target_lang: 'EN-US' }), { query: '早上好，世界' });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/v2/translate');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ text: ['早上好，世界'], source_lang: 'ZH', target_lang: 'EN-US' });
    expect(r.outputs).toEqual({ formalized_content: 'Good morning, world' });
    expect(r.answer).toBe('Good morning, world');
  });

  it("sends a Pro key (no :fx) to the Pro API when the base URL is DeepL's default, as the deepl package does", async () => {
    const urls: string[] = [];
    const recording = async (url: string | URL) => {
      urls.push(String(url));
      return new Response(JSON.stringify({ translations: [{ text: 'Hi' }] }), { status: 200 });
    };
    const at = (apiKey: string): WebToolCall => ({
      ...call({}, apiKey),
      fetch: recording,
      baseUrl: DEEPL.defaultBaseUrl,
    });
    await DEEPL.call(at('pro-key'), { query: '嗨' });
    await DEEPL.call(at('free-key:fx'), { query: '嗨' });
    expect(urls).toEqual(['https://api.deepl.com/v2/translate', 'https://api-free.deepl.com/v2/translate']);
  });

  it('answers an empty text with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await DEEPL.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it('fails on a refused key, and refuses languages DeepL does not take, naming them', async () => {
    await expect(DEEPL.call(call({}, 'other-key'), { query: '你好' })).rejects.toMatchObject({
      code: ProviderErrorCode.Unauthorized,
      message: expect.stringContaining('DeepL answered 403'),
    });
    await expect(DEEPL.call(call({ target_lang: 'EN' }), { query: '你好' })).rejects.toThrow(
      'DeepL: target_lang "EN"',
    );
    await expect(DEEPL.call(call({ source_lang: 'EN-GB' }), { query: '你好' })).rejects.toThrow(
      'DeepL: source_lang "EN-GB"',
    );
  });
});
