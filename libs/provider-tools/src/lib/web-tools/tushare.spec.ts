import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { TUSHARE } from './tushare';
import type { WebToolCall } from './web-tool';

// TuShare against a local server answering TuShare Pro's HTTP API in its documented shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  apiKey: 'ts-token',
  params: { ...TUSHARE.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('POST', '/', (req) => {
      const body = JSON.parse(req.body) as { token: string };
      return {
        json:
          body.token === 'ts-token'
            ? {
                request_id: 'a1b2c3',
                code: 0,
                msg: '',
                data: {
                  fields: ['datetime', 'content', 'title'],
                  items: [
                    ['2024-05-06 10:01:00', '央行开展逆回购操作，Gold 价格走高', '央行'],
                    ['2024-05-06 10:00:00', '沪指低开', '早盘'],
                    ['2024-05-06 09:58:00', 'GOLD futures rise 1%', '期货'],
                  ],
                  has_more: false,
                },
              }
            : { request_id: 'd4e5f6', code: 40101, msg: '您的token不对，请确认。', data: null },
      };
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('TuShare', () => {
  it('asks for the news of the source and keeps the briefs holding the keyword, as a table', async () => {
    const r = await TUSHARE.call(call({ src: 'sina', end_date: '2024-05-06 12:00:00' }), { query: 'gold' });
    expect(JSON.parse(standIn.requests.at(-1)!.body)).toEqual({
      api_name: 'news',
      token: 'ts-token',
      params: { src: 'sina', start_date: '2024-01-01 09:00:00', end_date: '2024-05-06 12:00:00' },
    });
    const table = r.outputs['formalized_content'] as string;
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^\| {4}\| datetime +\| content +\| title +\|$/);
    expect(lines[1]).toMatch(/^\|---:\|:-+\|:-+\|:-+\|$/);
    // The matching rows keep their place in TuShare's list (pandas keeps the index).
    expect(lines[2]).toMatch(/^\| {2}0 \| 2024-05-06 10:01:00 \| 央行开展逆回购操作，Gold 价格走高/);
    expect(lines[3]).toMatch(/^\| {2}2 \| 2024-05-06 09:58:00 \| GOLD futures rise 1%/);
    expect(table).not.toContain('沪指低开');
    expect(r.answer).toBe(table);
  });

  it('filters by the keyword param over the input, and fills end_date with now', async () => {
    const r = await TUSHARE.call(call({ keyword: '沪指' }), { query: 'gold' });
    const sent = JSON.parse(standIn.requests.at(-1)!.body) as { params: { end_date: string } };
    expect(sent.params.end_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(r.answer).toContain('沪指低开');
    expect(r.answer).not.toContain('Gold');
  });

  it('answers an empty input with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await TUSHARE.call(call({ keyword: 'x' }), { query: '' })).outputs).toEqual({
      formalized_content: '',
    });
    expect(standIn.requests.length).toBe(before);
  });

  it("fails with TuShare's message on a refused token, and names a bad src", async () => {
    const bad = { ...call(), apiKey: 'wrong' };
    await expect(TUSHARE.call(bad, { query: 'x' })).rejects.toMatchObject({
      code: ProviderErrorCode.Unauthorized,
      message: 'TuShare: 您的token不对，请确认。 (code 40101)',
    });
    await expect(TUSHARE.call(call({ src: 'reuters' }), { query: 'x' })).rejects.toThrow(ProviderException);
    await expect(TUSHARE.call(call({ src: 'reuters' }), { query: 'x' })).rejects.toThrow('src');
  });
});
