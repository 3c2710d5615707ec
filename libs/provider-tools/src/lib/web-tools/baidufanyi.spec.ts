import { createHash } from 'node:crypto';
import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode } from '../provider.exception';
import { BAIDU_FANYI } from './baidufanyi';
import type { WebToolCall } from './web-tool';

// BaiduFanyi against a local server answering Baidu's translate APIs in their documented JSON,
// checking each request's sign as Baidu does.

const APPID = '20240001000000001';
const SECRET = 'Xy7bSecretKey00';
const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey = `${APPID}:${SECRET}`): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  apiKey,
  params: { ...BAIDU_FANYI.defaults, target_lang: 'en', ...params },
});

const answer = (domain: string) => (req: { body: string }) => {
  const f = Object.fromEntries(new URLSearchParams(req.body));
  if (
    f['appid'] !== APPID ||
    f['sign'] !== md5(`${APPID}${f['q']}${f['salt']}${domain ? f['domain'] : ''}${SECRET}`)
  ) {
    return { json: { error_code: '54001', error_msg: 'Invalid Sign' } };
  }
  return {
    json: {
      from: 'zh',
      to: f['to'],
      trans_result: (f['q'] ?? '').split('\n').map((src, i) => ({ src, dst: `line ${i + 1} in ${f['to']}` })),
    },
  };
};

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('POST', '/api/trans/vip/translate', answer(''))
    .on('POST', '/api/trans/vip/fieldtranslate', answer('domain'))
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('BaiduFanyi', () => {
  it('posts the signed form with the languages, and answers the translation line by line', async () => {
    const r = await BAIDU_FANYI.call(call(), { query: '苹果\n香蕉' });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/api/trans/vip/translate');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const f = Object.fromEntries(new URLSearchParams(req.body));
    expect(f).toMatchObject({ q: '苹果\n香蕉', from: 'auto', to: 'en', appid: APPID });
    expect(f['domain']).toBeUndefined();
    expect(Number(f['salt'])).toBeGreaterThanOrEqual(32768);
    expect(f['sign']).toBe(md5(`${APPID}苹果\n香蕉${f['salt']}${SECRET}`));
    expect(r.outputs).toEqual({ formalized_content: 'line 1 in en\nline 2 in en' });
    expect(r.answer).toBe('line 1 in en\nline 2 in en');
  });

  it('signs the domain into a field translation', async () => {
    const r = await BAIDU_FANYI.call(
      call({ trans_type: 'fieldtranslate', domain: 'law', target_lang: 'jp' }),
      {
        query: '合同',
      },
    );
    const f = Object.fromEntries(new URLSearchParams(standIn.requests.at(-1)!.body));
    expect(standIn.requests.at(-1)!.path).toBe('/api/trans/vip/fieldtranslate');
    expect(f).toMatchObject({ domain: 'law', to: 'jp' });
    expect(f['sign']).toBe(md5(`${APPID}合同${f['salt']}law${SECRET}`));
    expect(r.answer).toBe('line 1 in jp');
  });

  it('answers an empty text with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await BAIDU_FANYI.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it("fails on Baidu's error answer, on a key that is not appid:secret_key, and on bad params", async () => {
    await expect(BAIDU_FANYI.call(call({}, `${APPID}:wrong`), { query: '你好' })).rejects.toMatchObject({
      code: ProviderErrorCode.Unauthorized,
      message: 'BaiduFanyi answered 54001: Invalid Sign',
    });
    await expect(BAIDU_FANYI.call(call({}, 'just-a-secret'), { query: '你好' })).rejects.toMatchObject({
      code: ProviderErrorCode.InvalidInput,
      message: expect.stringContaining('"appid:secret_key"'),
    });
    await expect(BAIDU_FANYI.call(call({ domain: 'sports' }), { query: '你好' })).rejects.toThrow(
      'BaiduFanyi: domain "sports"',
    );
    await expect(BAIDU_FANYI.call(call({ trans_type: 'auto' }), { query: '你好' })).rejects.toThrow(
      'BaiduFanyi: trans_type "auto"',
    );
  });
});
