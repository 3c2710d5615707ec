import { Inject, Injectable } from '@nestjs/common';
import type { GuardedFetch } from '@switchyard/net-guard';
import {
  type Provider,
  ProviderErrorCode,
  ProviderException,
  ProviderKeys,
  WEB_TOOLS,
  type WebToolResult,
  type WebToolSpec,
  fillBaseUrl,
  providerFetch,
  providerHostVetting,
  toolParams,
  webToolUrlVariable,
} from '@switchyard/provider-tools';
import type { ComponentContext, ComponentEffect } from '@switchyard/graph';
import type { ComponentRunner } from '../component-runner';
import type { GraphToolFactory } from '../graph-tool';
import { GraphProvidersConfig } from '../graph-providers.config';
import { providerTool } from './provider-tool';
import { toolInput } from './tool-input';

/**
 * RAGFlow's web tools (libs/provider-tools WEB_TOOLS) as canvas components and as Agent tools:
 * the same spec runs both. A component reads its inputs from its params (RAGFlow's defaults,
 * `{sys.query}` for the query) and fails through its exception policy; an Agent's call gets the
 * model's arguments, and a provider failure is the tool's answer (`Wikipedia error: …`).
 */
@Injectable()
export class WebToolsComponent implements ComponentRunner {
  readonly names: readonly string[] = WEB_TOOLS.map((s) => s.component);
  private readonly specs = new Map(WEB_TOOLS.map((s) => [s.component, s]));
  private readonly fetcher: GuardedFetch;
  private readonly vetHost: (host: string) => Promise<string>;

  constructor(
    @Inject(GraphProvidersConfig) private readonly config: GraphProvidersConfig,
    @Inject(ProviderKeys) private readonly keys: ProviderKeys,
  ) {
    this.fetcher = providerFetch(config.providers);
    this.vetHost = providerHostVetting(config.providers);
  }

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const spec = this.spec(ctx.component.name);
    const args = Object.fromEntries(
      Object.entries(spec.inputs).map(([name, fallback]) => [
        name,
        toolInput(ctx.scope, ctx.component.params, name, fallback),
      ]),
    );
    const r = await this.call(spec, ctx.tenantId, ctx.component.params, args, ctx.signal);
    return { outputs: r.outputs, summary: r.summary };
  }

  /** One Agent tool factory per web tool, under its RAGFlow component name. */
  factories(): GraphToolFactory[] {
    return [...this.specs.values()].map((spec) => ({
      componentName: spec.component,
      create: (entry, index) =>
        providerTool({
          functionName: spec.functionName,
          index,
          entryParams: entry.params,
          description: spec.description,
          parameters: spec.parameters,
          errorPrefix: spec.component,
          call: async (args, ctx) =>
            (await this.call(spec, ctx.tenantId, entry.params, args, ctx.signal)).answer,
        }),
    }));
  }

  private spec(component: string): WebToolSpec {
    const spec = this.specs.get(component);
    if (!spec) {
      throw new Error(`${component} is not a web tool`);
    }
    return spec;
  }

  private async call(
    spec: WebToolSpec,
    tenantId: string,
    canvasParams: Record<string, unknown>,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<WebToolResult> {
    const params = toolParams(spec, canvasParams);
    let apiKey: string | undefined;
    if (spec.key) {
      apiKey = await this.keys.activeKey(tenantId, spec.key.provider as Provider);
      if (!apiKey && spec.key.required) {
        throw new ProviderException(
          ProviderErrorCode.NoKey,
          `${spec.component}: the tenant has no ${spec.key.provider} key (set one with PUT /v1/admin/tenants/:id/provider-keys/${spec.key.provider})`,
        );
      }
    }
    const template = this.config.webToolUrls[spec.component];
    if (!template) {
      throw new Error(`${webToolUrlVariable(spec)} is not configured`);
    }
    return spec.call(
      {
        fetch: this.fetcher,
        vetHost: this.vetHost,
        baseUrl: fillBaseUrl(template, params),
        params,
        signal,
        ...(apiKey ? { apiKey } : {}),
      },
      args,
    );
  }
}
