import type { WebToolCase } from './web-tool-case';
import { AKSHARE_CASE } from './akshare.case';
import { BAIDU_CASE } from './baidu.case';
import { CRAWLER_CASE } from './crawler.case';
import { JIN10_CASE } from './jin10.case';
import { TAVILY_EXTRACT_CASE } from './tavilyextract.case';
import { TUSHARE_CASE } from './tushare.case';
import { ARXIV_CASE } from './arxiv.case';
import { BAIDU_FANYI_CASE } from './baidufanyi.case';
import { DEEPL_CASE } from './deepl.case';
import { DUCKDUCKGO_CASE } from './duckduckgo.case';
import { GITHUB_CASE } from './github.case';
import { GOOGLE_CASE } from './google.case';
import { GOOGLE_SCHOLAR_CASE } from './googlescholar.case';
import { PUBMED_CASE } from './pubmed.case';
import { QWEATHER_CASE } from './qweather.case';
import { SEARXNG_CASE } from './searxng.case';
import { WENCAI_CASE } from './wencai.case';
import { WIKIPEDIA_CASE } from './wikipedia.case';

export type { WebToolCase } from './web-tool-case';

/** Every web tool's end-to-end case. */
export const WEB_TOOL_CASES: readonly WebToolCase[] = [
  WIKIPEDIA_CASE,
  AKSHARE_CASE,
  WENCAI_CASE,
  GITHUB_CASE,
  SEARXNG_CASE,
  GOOGLE_CASE,
  GOOGLE_SCHOLAR_CASE,
  DUCKDUCKGO_CASE,
  ARXIV_CASE,
  PUBMED_CASE,
  QWEATHER_CASE,
  DEEPL_CASE,
  BAIDU_FANYI_CASE,
  TUSHARE_CASE,
  JIN10_CASE,
  TAVILY_EXTRACT_CASE,
  CRAWLER_CASE,
  BAIDU_CASE,
];
