import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { AKSHARE } from './akshare';
import type { WebToolCall } from './web-tool';
import { WENCAI } from './wencai';

// AkShare against a local server answering East Money's search API in its JSONP shape.

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...AKSHARE.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/search/jsonp', (req) => ({
      text: `${req.query['cb']}(${JSON.stringify({
        code: 0,
        msg: '成功',
        result: {
          cmsArticleWebOld: [
            {
              date: '2026-11-26 09:30:00',
              title: '<em>贵州茅台</em>发布公告',
              content: '公司\u3000公告\r\n内容',
              mediaName: '证券时报',
              code: '202611263000001',
              image: '',
            },
            {
              date: '2026-11-25 10:00:00',
              title: '第二条',
              content: '第二条内容',
              mediaName: '新华网',
              code: '202611253000002',
            },
          ],
        },
      })})`,
    }))
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('AkShare', () => {
  it("asks for the symbol's news and renders top_n articles as upstream, highlights and full-width spaces removed", async () => {
    const r = await AKSHARE.call(call({ top_n: 1 }), { query: '600519' });
    const param = JSON.parse(standIn.requests.at(-1)!.query['param']) as { keyword: string; type: string[] };
    expect(param.keyword).toBe('600519');
    expect(param.type).toEqual(['cmsArticleWebOld']);
    expect(r.outputs['formalized_content']).toBe(
      '<a href="http://finance.eastmoney.com/a/202611263000001.html">贵州茅台发布公告</a>\n 新闻内容: 公司公告 内容 \n发布时间:2026-11-26 09:30:00 \n文章来源: 证券时报',
    );
    expect(r.answer).toBe(r.outputs['formalized_content']);
  });

  it('answers an empty symbol with nothing and refuses a bad top_n', async () => {
    expect((await AKSHARE.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    await expect(AKSHARE.call(call({ top_n: -2 }), { query: '600519' })).rejects.toThrow('top_n');
  });
});

describe('WenCai', () => {
  it('answers an empty report, as upstream does since its data source was disabled', async () => {
    const before = standIn.requests.length;
    const r = await WENCAI.call(call(), { query: 'stocks up 5% today' });
    expect(r.outputs).toEqual({ report: '' });
    expect(standIn.requests.length).toBe(before);
  });
});
