import { Inject, Injectable } from '@nestjs/common';
import {
  ProviderKeys,
  YAHOO_TOOL_DESCRIPTION,
  YAHOO_TOOL_PARAMETERS,
  YahooFinanceClient,
  type YahooFinanceParams,
} from '@switchyard/provider-tools';
import type { ComponentContext, ComponentEffect } from '@switchyard/graph';
import type { ComponentRunner } from '../component-runner';
import type { GraphTool, GraphToolFactory } from '../graph-tool';
import { providerTool } from './provider-tool';
import { toolInput } from './tool-input';

const SECTIONS = [
  'info',
  'history',
  'count',
  'financials',
  'income_stmt',
  'balance_sheet',
  'cash_flow_statement',
  'news',
] as const;

const sectionsOf = (params: Record<string, unknown>): YahooFinanceParams =>
  Object.fromEntries(SECTIONS.filter((s) => params[s] !== undefined).map((s) => [s, params[s]]));

/** YahooFinance: a stock's report from Yahoo Finance, as a component and as an Agent tool. */
@Injectable()
export class YahooFinanceComponent implements GraphToolFactory, ComponentRunner {
  readonly names: readonly string[] = ['YahooFinance'];
  readonly componentName = 'YahooFinance';

  constructor(
    @Inject(YahooFinanceClient) private readonly client: YahooFinanceClient,
    @Inject(ProviderKeys) private readonly keys: ProviderKeys,
  ) {}

  async report(tenantId: string, params: Record<string, unknown>, stockCode: string, signal: AbortSignal) {
    // Yahoo's own endpoints need no key; a tenant's key is sent when it has one (a keyed mirror).
    const apiKey = await this.keys.activeKey(tenantId, 'yahoo_finance');
    return this.client.report(stockCode, sectionsOf(params), apiKey, signal);
  }

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const p = ctx.component.params;
    const code = toolInput(ctx.scope, p, 'stock_code', '{sys.query}');
    const report = await this.report(
      ctx.tenantId,
      p,
      typeof code === 'string' ? code : String(code ?? ''),
      ctx.signal,
    );
    return { outputs: { report }, summary: `YahooFinance: ${report.length} characters of report` };
  }

  create(entry: { name?: string; params: Record<string, unknown> }, index: number): GraphTool {
    return providerTool({
      functionName: 'yahoo_finance',
      index,
      entryParams: entry.params,
      description: YAHOO_TOOL_DESCRIPTION,
      parameters: YAHOO_TOOL_PARAMETERS,
      errorPrefix: 'YahooFinance',
      call: (args, ctx) =>
        this.report(ctx.tenantId, entry.params, String(args['stock_code'] ?? ''), ctx.signal),
    });
  }
}
