import type { Provider as NestProvider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { ProviderKeys, TavilyClient, YahooFinanceClient, providerFetch } from '@switchyard/provider-tools';
import { CodeExecComponent } from './components/code-exec';
import { ExeSqlComponent } from './components/exe-sql.component';
import { TavilySearchComponent } from './components/tavily-search.component';
import { WebToolsComponent } from './components/web-tools.component';
import { YahooFinanceComponent } from './components/yahoo-finance.component';
import { GraphProvidersConfig } from './graph-providers.config';
import { GRAPH_TOOL_FACTORIES, type GraphToolFactory } from './graph-tool';

/** The planner's providers for graph components that call out: clients, keys, tool factories. */
export const GRAPH_PROVIDERS: NestProvider[] = [
  { provide: GraphProvidersConfig, useFactory: () => new GraphProvidersConfig() },
  {
    provide: ProviderKeys,
    useFactory: (ds: DataSource, c: GraphProvidersConfig) => new ProviderKeys(ds, new SecretBox(c.secretKey)),
    inject: [DataSource, GraphProvidersConfig],
  },
  {
    provide: TavilyClient,
    useFactory: (c: GraphProvidersConfig) =>
      new TavilyClient(c.providers.SWITCHYARD_TAVILY_BASE_URL, providerFetch(c.providers)),
    inject: [GraphProvidersConfig],
  },
  {
    provide: YahooFinanceClient,
    useFactory: (c: GraphProvidersConfig) =>
      new YahooFinanceClient(c.providers.SWITCHYARD_YAHOO_FINANCE_BASE_URL, providerFetch(c.providers)),
    inject: [GraphProvidersConfig],
  },
  {
    // Every Agent tool the planner can offer, by RAGFlow component name.
    provide: GRAPH_TOOL_FACTORIES,
    useFactory: (web: WebToolsComponent, ...factories: GraphToolFactory[]) => [
      ...factories,
      ...web.factories(),
    ],
    inject: [
      WebToolsComponent,
      TavilySearchComponent,
      YahooFinanceComponent,
      CodeExecComponent,
      ExeSqlComponent,
    ],
  },
];
