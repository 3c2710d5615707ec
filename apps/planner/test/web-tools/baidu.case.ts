import type { WebToolCase } from './web-tool-case';

// Baidu's result page: each result a `.result.c-container` with its title link and abstract.
const page = (wd: string, rn: number) => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>${wd}_百度搜索</title></head>
<body>
  <div id="content_left">
    ${Array.from(
      { length: rn },
      (_, i) => `
    <div class="result c-container new-pmd" id="${i + 1}" tpl="se_com_default">
      <h3 class="c-title t"><a href="http://www.baidu.com/link?url=r${i + 1}" target="_blank"><em>${wd}</em> result ${i + 1}</a></h3>
      <div class="c-abstract"><em>${wd}</em> is described in result ${i + 1}.</div>
    </div>`,
    ).join('')}
  </div>
</body></html>`;

export const BAIDU_CASE: WebToolCase = {
  component: 'Baidu',
  envName: 'BAIDU',
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/s`, (req) => ({
      text: page(req.query['wd'] ?? '', Number(req.query['rn'] ?? 10)),
      headers: { 'Content-Type': 'text/html; charset=utf-8' },
    })),
  params: { top_n: 3 },
  prompt: 'Great Wall',
  expected: ['Great Wall result 3', 'Great Wall is described in result 1.'],
  agent: { args: { query: 'Terracotta Army' }, reads: 'Terracotta Army is described in result 2.' },
};
