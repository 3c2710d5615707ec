import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { BAIDU } from './baidu';
import type { WebToolCall } from './web-tool';

// Baidu against a local server answering /s with a page shaped like Baidu's result list.

const result = (id: number, title: string, href: string, abstract: string, modern = false) => `
  <div class="result c-container xpath-log new-pmd" srcid="1599" id="${id}" tpl="se_com_default" mu="${href}">
    <div class="c-container">
      <h3 class="c-title t t tts-title"><a href="${href}" target="_blank">${title}</a></h3>
      ${
        modern
          ? `<div class="c-row"><span class="content-right_8Zs40">${abstract}</span></div>`
          : `<div class="c-abstract"><span class="newTimeFactor_before_abs">2024年5月6日&nbsp;-&nbsp;</span>${abstract}</div>`
      }
      <div class="f13"><a class="c-showurl" href="${href}">www.example.com/</a></div>
    </div>
  </div>`;

const page = (wd: string) => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>${wd}_百度搜索</title>
<script>var bds = { comm: {} };</script></head>
<body>
  <div id="head"><form id="form" action="/s"><input id="kw" name="wd" value="${wd}"></form></div>
  <div id="container">
    <div id="content_left">
      ${result(1, '<em>大熊猫</em>_百度百科', 'http://www.baidu.com/link?url=panda1', '<em>大熊猫</em>是中国特有物种，属于熊科。')}
      <div class="result-op c-container" tpl="sp_realtime_bigpic5" id="2"><h3 class="t"><a href="http://www.baidu.com/link?url=news">大熊猫的最新相关信息</a></h3></div>
      ${result(3, '<em>大熊猫</em>吃什么', 'http://www.baidu.com/link?url=panda2', '野生<em>大熊猫</em>的食物99%是竹子。', true)}
      ${result(4, '成都<em>大熊猫</em>繁育研究基地', 'http://www.baidu.com/link?url=panda3', '基地位于成都北郊。')}
    </div>
    <div id="content_right"><div class="cr-content">百度热搜</div></div>
  </div>
</body></html>`;

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...BAIDU.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/s', (req): { status?: number; text: string; headers: Record<string, string> } =>
      req.query['wd'] === 'blocked'
        ? {
            status: 302,
            text: '',
            headers: { Location: 'https://wappass.baidu.com/static/captcha/tuxing.html' },
          }
        : { text: page(req.query['wd'] ?? ''), headers: { 'Content-Type': 'text/html; charset=utf-8' } },
    )
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('Baidu', () => {
  it("searches with the query and top_n and renders the top_n results of Baidu's list", async () => {
    const r = await BAIDU.call(call({ top_n: 2 }), { query: '大熊猫' });
    const req = standIn.requests.at(-1)!;
    expect(req.query).toEqual({ wd: '大熊猫', rn: '2' });
    expect(req.headers['user-agent']).toContain('Mozilla/5.0');
    const text = r.outputs['formalized_content'] as string;
    expect(text).toContain('大熊猫_百度百科');
    expect(text).toContain('URL: http://www.baidu.com/link?url=panda1');
    expect(text).toContain('大熊猫是中国特有物种，属于熊科。');
    // The abstract in today's `content-right_…` span; the news block is no `.result`.
    expect(text).toContain('野生大熊猫的食物99%是竹子。');
    expect(text).not.toContain('最新相关信息');
    expect(text).not.toContain('繁育研究基地');
    expect(text.indexOf('百度百科')).toBeLessThan(text.indexOf('吃什么'));
    expect(r.answer).toBe(text);
  });

  it('answers an empty query with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await BAIDU.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it('fails when Baidu sends a check page instead of results, and names a bad top_n', async () => {
    await expect(BAIDU.call(call(), { query: 'blocked' })).rejects.toMatchObject({
      code: ProviderErrorCode.BadResponse,
      message: expect.stringContaining('Baidu answered 302'),
    });
    await expect(BAIDU.call(call({ top_n: -1 }), { query: 'x' })).rejects.toThrow(ProviderException);
    await expect(BAIDU.call(call({ top_n: -1 }), { query: 'x' })).rejects.toThrow('top_n');
  });
});
