import type { WebToolComponentName } from '@switchyard/contracts';
import { type Canvas, GraphErrorCode, type GraphProblem } from '@switchyard/graph';
import { type WebToolSpec, paramProblems } from './web-tool';
import { AKSHARE } from './akshare';
import { BAIDU } from './baidu';
import { CRAWLER } from './crawler';
import { JIN10 } from './jin10';
import { TAVILY_EXTRACT } from './tavilyextract';
import { TUSHARE } from './tushare';
import { ARXIV } from './arxiv';
import { BAIDU_FANYI } from './baidufanyi';
import { DEEPL } from './deepl';
import { DUCKDUCKGO } from './duckduckgo';
import { EMAIL } from './email';
import { GITHUB } from './github';
import { GOOGLE } from './google';
import { GOOGLE_SCHOLAR } from './googlescholar';
import { PUBMED } from './pubmed';
import { QWEATHER } from './qweather';
import { SEARXNG } from './searxng';
import { WENCAI } from './wencai';
import { WIKIPEDIA } from './wikipedia';

export * from './web-tool';

/** One spec per RAGFlow web tool that runs here (contracts' WEB_TOOL_COMPONENTS: the compiler keeps the two alike). */
export const WEB_TOOL_SPECS: Readonly<Record<WebToolComponentName, WebToolSpec>> = {
  Wikipedia: WIKIPEDIA,
  Email: EMAIL,
  AkShare: AKSHARE,
  WenCai: WENCAI,
  GitHub: GITHUB,
  SearXNG: SEARXNG,
  Google: GOOGLE,
  GoogleScholar: GOOGLE_SCHOLAR,
  DuckDuckGo: DUCKDUCKGO,
  ArXiv: ARXIV,
  PubMed: PUBMED,
  QWeather: QWEATHER,
  DeepL: DEEPL,
  BaiduFanyi: BAIDU_FANYI,
  TuShare: TUSHARE,
  Jin10: JIN10,
  TavilyExtract: TAVILY_EXTRACT,
  Crawler: CRAWLER,
  Baidu: BAIDU,
};

export const WEB_TOOLS: readonly WebToolSpec[] = Object.values(WEB_TOOL_SPECS);

/**
 * A RAGFlow canvas's web tools whose params RAGFlow's `check()` would refuse (as components and
 * as Agents' tools): the gateway refuses them on save, as a graph DSL problem naming the field.
 */
export function webToolProblems(canvas: Canvas): GraphProblem[] {
  const specs = new Map(WEB_TOOLS.map((s) => [s.component, s]));
  const problems: GraphProblem[] = [];
  for (const c of Object.values(canvas.components)) {
    const own = specs.get(c.name);
    for (const p of own ? paramProblems(own, c.params) : []) {
      problems.push({
        code: GraphErrorCode.MissingParam,
        component: c.id,
        field: p.field,
        message: p.message,
      });
    }
    const tools = c.name === 'Agent' ? (c.params['tools'] as unknown[] | undefined) : undefined;
    (Array.isArray(tools) ? tools : []).forEach((t, i) => {
      const entry = t as { component_name?: unknown; params?: Record<string, unknown> | null } | null;
      const spec = typeof entry?.component_name === 'string' ? specs.get(entry.component_name) : undefined;
      for (const p of spec ? paramProblems(spec, entry?.params ?? {}) : []) {
        problems.push({
          code: GraphErrorCode.MissingParam,
          component: c.id,
          field: `params.tools.${i}.params.${p.field}`,
          message: `${spec!.component} tool: ${p.message}`,
        });
      }
    });
  }
  return problems;
}
