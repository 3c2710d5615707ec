import type { WebToolSpec } from './web-tool';

/**
 * RAGFlow agent/tools/wencai.py as upstream runs it today: its pywencai call is commented out
 * (`res = []`), so the tool answers an empty `report` for every query, without a call. The same
 * here, so a canvas using it moves and behaves as it does on RAGFlow; nothing is fetched.
 */
export const WENCAI: WebToolSpec = {
  component: 'WenCai',
  functionName: 'iwencai',
  envName: 'WENCAI',
  defaultBaseUrl: 'https://www.iwencai.com',
  description: `
iwencai search: search platform is committed to providing hundreds of millions of investors with the most timely, accurate and comprehensive information, covering news, announcements, research reports, blogs, forums, Weibo, characters, etc.
robo-advisor intelligent stock selection platform: through AI technology, is committed to providing investors with intelligent stock selection, quantitative investment, main force tracking, value investment, technical analysis and other types of stock selection technologies.
fund selection platform: through AI technology, is committed to providing excellent fund, value investment, quantitative analysis and other fund selection technologies for foundation citizens.
`,
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'The question/conditions to select stocks.' } },
    required: ['query'],
  },
  inputs: { query: '{sys.query}' },
  defaults: { top_n: 10, query_type: 'stock' },
  checks: {
    positiveInt: ['top_n'],
    oneOf: {
      query_type: [
        'stock',
        'zhishu',
        'fund',
        'hkstock',
        'usstock',
        'threeboard',
        'conbond',
        'insurance',
        'futures',
        'lccp',
        'foreign_exchange',
      ],
    },
  },
  call(_ctx, args) {
    const asked = String(args['query'] ?? '') !== '';
    return Promise.resolve({
      outputs: { report: '' },
      answer: '',
      summary: asked
        ? 'WenCai: upstream answers an empty report (its data source is disabled)'
        : 'WenCai: empty query',
    });
  },
};
