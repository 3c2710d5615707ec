import { KNOWN_COMPONENTS, parseCanvas, validateCanvas } from '@switchyard/graph';
import { WEB_TOOLS, webToolProblems, webToolUrlVariable, webToolUrls } from './index';

describe('WEB_TOOLS', () => {
  it('are RAGFlow components the validator accepts, as components and as Agent tools', () => {
    for (const spec of WEB_TOOLS) {
      expect(KNOWN_COMPONENTS.has(spec.component)).toBe(true);
      const canvas = {
        components: {
          begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['T:0'], upstream: [] },
          'T:0': {
            obj: { component_name: spec.component, params: {} },
            downstream: ['Agent:A'],
            upstream: ['begin'],
          },
          'Agent:A': {
            obj: {
              component_name: 'Agent',
              params: { llm_id: 'm', tools: [{ component_name: spec.component }] },
            },
            downstream: [],
            upstream: ['T:0'],
          },
        },
      };
      expect(() => validateCanvas(canvas)).not.toThrow();
    }
  });

  it("cover every tool of RAGFlow's agent (seed 002) and its older Baidu, BaiduFanyi, TuShare, Jin10", () => {
    expect(WEB_TOOLS.map((s) => s.component).sort()).toEqual(
      [
        'AkShare',
        'ArXiv',
        'Baidu',
        'BaiduFanyi',
        'Crawler',
        'DeepL',
        'DuckDuckGo',
        'Email',
        'GitHub',
        'Google',
        'GoogleScholar',
        'Jin10',
        'PubMed',
        'QWeather',
        'SearXNG',
        'TavilyExtract',
        'TuShare',
        'WenCai',
        'Wikipedia',
      ].sort(),
    );
  });

  it('take their base URLs from SWITCHYARD_PROVIDER_URL_<TOOL>, naming a bad one', () => {
    const [first] = WEB_TOOLS;
    const name = webToolUrlVariable(first);
    expect(webToolUrls(WEB_TOOLS, { [name]: 'http://127.0.0.1:9/' })[first.component]).toBe(
      'http://127.0.0.1:9',
    );
    expect(webToolUrls(WEB_TOOLS, {})[first.component]).toBe(first.defaultBaseUrl);
    expect(() => webToolUrls(WEB_TOOLS, { [name]: 'ftp://x' })).toThrow(name);
    expect(() => webToolUrls(WEB_TOOLS, { [name]: 'http://u:p@x' })).toThrow(name);
  });
});

describe(webToolProblems.name, () => {
  const canvasOf = (components: Record<string, unknown>) => parseCanvas({ components });
  const cpn = (name: string, params: Record<string, unknown>) => ({
    obj: { component_name: name, params },
    downstream: [],
    upstream: [],
  });

  it('names what RAGFlow’s check() refuses, in components and in Agents’ tools', () => {
    const problems = webToolProblems(
      canvasOf({
        'Wikipedia:W': cpn('Wikipedia', { top_n: 0 }),
        'WenCai:C': cpn('WenCai', { query_type: 'crypto' }),
        'Agent:A': cpn('Agent', {
          llm_id: 'm',
          tools: [{ component_name: 'Email', params: { email: 'a@b.c' } }],
        }),
      }),
    );
    expect(problems.map((p) => `${p.component} ${p.field}: ${p.message}`)).toEqual([
      'Wikipedia:W top_n: top_n must be a positive integer',
      'WenCai:C query_type: query_type must be one of stock, zhishu, fund, hkstock, usstock, threeboard, conbond, insurance, futures, lccp, foreign_exchange',
      'Agent:A params.tools.0.params.smtp_server: Email tool: smtp_server must be set',
      'Agent:A params.tools.0.params.sender_name: Email tool: sender_name must be set',
    ]);
  });

  it('accepts the defaults, good values and references left to run time', () => {
    expect(
      webToolProblems(
        canvasOf({
          'Wikipedia:W': cpn('Wikipedia', {}),
          'ArXiv:X': cpn('ArXiv', { top_n: '{begin@n}', sort_by: 'relevance' }),
          'Crawler:C': cpn('Crawler', { extract_type: 'html' }),
        }),
      ),
    ).toEqual([]);
  });
});
