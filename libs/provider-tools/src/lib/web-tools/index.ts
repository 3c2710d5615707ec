import type { WebToolComponentName } from '@switchyard/contracts';
import type { WebToolSpec } from './web-tool';
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
