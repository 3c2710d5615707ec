import type { WebToolCase } from './web-tool-case';

const jsonp = (cb: string, keyword: string) =>
  `${cb}(${JSON.stringify({
    code: 0,
    result: {
      cmsArticleWebOld: [
        {
          date: '2026-11-26 09:30:00',
          title: `<em>${keyword}</em> 年报`,
          content: `${keyword} 的年报发布`,
          mediaName: '证券时报',
          code: '202611263000001',
        },
      ],
    },
  })})`;

export const AKSHARE_CASE: WebToolCase = {
  component: 'AkShare',
  envName: 'AKSHARE',
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/search/jsonp`, (req) => ({
      text: jsonp(
        req.query['cb'] ?? 'cb',
        (JSON.parse(req.query['param'] ?? '{}') as { keyword?: string }).keyword ?? '',
      ),
    })),
  params: { top_n: 5 },
  prompt: '600519',
  expected: ['600519 年报', '新闻内容: 600519 的年报发布', '文章来源: 证券时报'],
  agent: { args: { query: '000001' }, reads: '000001 的年报发布' },
};
