import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { JIN10 } from './jin10';
import type { WebToolCall } from './web-tool';

// Jin10 against a local server answering Jin10's open data API in its documented shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey = 'jin10-secret'): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  apiKey,
  params: { ...JIN10.defaults, ...params },
});

const refused = { json: { status: 401, message: 'secret-key invalid', data: null } };
const keyed =
  (json: unknown) =>
  (req: { headers: Record<string, unknown> }): { json: unknown } =>
    req.headers['secret-key'] === 'jin10-secret' ? { json } : refused;

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on(
      'GET',
      '/data-api/flash',
      keyed({
        status: 200,
        message: 'OK',
        data: [
          {
            id: '20240506100100000100',
            time: '2024-05-06 10:01:00',
            type: 0,
            data: { pic: '', title: '', source: '', content: '现货黄金日内上涨1%，现报2320美元/盎司。' },
            important: 1,
            tags: [],
            channel: [1],
            remark: [],
          },
          {
            id: '20240506100000000100',
            time: '2024-05-06 10:00:00',
            type: 1,
            data: { name: '中国4月财新服务业PMI', actual: 52.5 },
            important: 0,
            tags: [],
            channel: [1],
            remark: [],
          },
          {
            id: '20240506095800000100',
            time: '2024-05-06 09:58:00',
            type: 0,
            data: { pic: '', title: '', source: '', content: '欧股开盘普遍上涨。' },
            important: 0,
            tags: [],
            channel: [1],
            remark: [],
          },
        ],
      }),
    )
    .on(
      'GET',
      '/data-api/calendar/data',
      keyed({
        status: 200,
        message: 'OK',
        data: [
          {
            pub_time: '2024-05-06 09:45',
            country: '中国',
            name: '4月财新服务业PMI',
            star: 3,
            actual: 52.5,
            previous: 52.7,
          },
        ],
      }),
    )
    .on(
      'GET',
      '/data-api/quotes',
      keyed({
        status: 200,
        message: 'OK',
        data: [
          {
            a: 63510.2,
            b: 63500.1,
            c: 'BTCUSD',
            e: 'CRYPTO',
            h: 64000,
            hc: 63000,
            l: 62800,
            o: 63100,
            p: 63505.5,
            t: '2024-05-06 10:01:00',
            ud: 505.5,
          },
        ],
      }),
    )
    .on(
      'GET',
      '/data-api/news',
      keyed({
        status: 200,
        message: 'OK',
        data: [
          { id: 1, title: '美联储议息前瞻', introduction: '市场关注点阵图。', time: '2024-05-06 08:00:00' },
        ],
      }),
    )
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('Jin10', () => {
  it('reads the quick news of the flash category, one line each, with the secret header', async () => {
    const r = await JIN10.call(call({ flash_type: 3, contain: '黄金' }), { query: 'gold' });
    const req = standIn.requests.at(-1)!;
    expect(req.path).toBe('/data-api/flash');
    expect(req.query).toEqual({ category: '3', contain: '黄金' });
    expect(req.headers['secret-key']).toBe('jin10-secret');
    expect(r.outputs).toEqual({
      formalized_content: '现货黄金日内上涨1%，现报2320美元/盎司。\n欧股开盘普遍上涨。',
    });
    expect(r.answer).toBe(r.outputs['formalized_content']);
  });

  it('tabulates a calendar, reference news and quotes with their keys named as upstream', async () => {
    const cal = await JIN10.call(call({ type: 'calendar', calendar_type: 'us' }), { query: 'x' });
    expect(standIn.requests.at(-1)!.query).toEqual({ category: 'us' });
    expect(cal.answer).toMatch(
      /^\| {4}\| pub_time +\| country +\| name +\| +star \| +actual \| +previous \|$/m,
    );
    expect(cal.answer).toContain('4月财新服务业PMI');

    const news = await JIN10.call(call({ type: 'news' }), { query: 'x' });
    expect(standIn.requests.at(-1)!.query).toEqual({});
    expect(news.answer).toContain('美联储议息前瞻');

    const quotes = await JIN10.call(
      call({ type: 'symbols', symbols_type: 'CRYPTO', symbols_datatype: 'quotes' }),
      {
        query: 'x',
      },
    );
    expect(standIn.requests.at(-1)!.query).toEqual({ type: 'CRYPTO', codes: 'BTCUSD' });
    const header = quotes.answer.split('\n')[0]!;
    expect(header.indexOf('ud')).toBeLessThan(header.indexOf('Selling Price'));
    expect(header).toContain('Yesterday’s Closing Price');
    expect(header).not.toMatch(/\| hc /);
  });

  it('answers an empty input with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await JIN10.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it("fails with Jin10's message on a refused key, and names a bad param", async () => {
    await expect(JIN10.call(call({}, 'wrong'), { query: 'x' })).rejects.toMatchObject({
      code: ProviderErrorCode.Unauthorized,
      message: 'Jin10: secret-key invalid (status 401)',
    });
    await expect(JIN10.call(call({ calendar_type: 'eu' }), { query: 'x' })).rejects.toThrow(
      ProviderException,
    );
    await expect(JIN10.call(call({ calendar_type: 'eu' }), { query: 'x' })).rejects.toThrow('calendar_type');
  });
});
