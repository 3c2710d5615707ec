export {
  PROVIDERS,
  type Provider,
  type ProviderEnv,
  providerEnvSchema,
  PROVIDER_ALLOW_VARIABLE,
} from './lib/provider-tools.config';
export { ProviderErrorCode, ProviderException } from './lib/provider.exception';
export { providerFetch, providerHostVetting } from './lib/provider-http';
export { type WebChunk, formalizedContent } from './lib/kb-prompt';
export { type Cell, type MarkdownTableOptions, formatG, markdownTable } from './lib/markdown-table';
export {
  TAVILY_TOOL_DESCRIPTION,
  TAVILY_TOOL_PARAMETERS,
  TavilyClient,
  type TavilyResult,
  type TavilySearchOutput,
  type TavilySearchParams,
  TavilySearchParamsSchema,
} from './lib/tavily.client';
export {
  YAHOO_TOOL_DESCRIPTION,
  YAHOO_TOOL_PARAMETERS,
  YahooFinanceClient,
  type YahooFinanceParams,
  YahooFinanceParamsSchema,
} from './lib/yahoo-finance.client';
export { ProviderKeys } from './lib/provider-keys.store';
export * from './lib/web-tools';
