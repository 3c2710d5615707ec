import { Inject, Injectable } from '@nestjs/common';
import {
  GraphErrorCode,
  GraphException,
  htmlText,
  invokeRequest,
  type ComponentContext,
  type ComponentEffect,
} from '@switchyard/graph';
import { type GuardedFetch, guardedFetch, toolLookup } from '@switchyard/net-guard';
import type { ComponentRunner } from '../component-runner';
import { GraphProvidersConfig } from '../graph-providers.config';

const ALLOW_VARIABLE = 'SWITCHYARD_INVOKE_ALLOW_HOSTS';

/**
 * Invoke: one HTTP request built from the params (libs/graph `invokeRequest`), through net-guard
 * (public addresses only unless SWITCHYARD_INVOKE_ALLOW_HOSTS names the host), redirects not
 * followed, within the params' `timeout`. The response text is the `result` output.
 */
@Injectable()
export class InvokeComponent implements ComponentRunner {
  readonly names: readonly string[] = ['Invoke'];
  private readonly fetcher: GuardedFetch;

  constructor(@Inject(GraphProvidersConfig) config: GraphProvidersConfig) {
    this.fetcher = guardedFetch({
      allowHosts: config.invokeAllowHosts,
      allowVariable: ALLOW_VARIABLE,
      lookup: toolLookup(config.providers),
    });
  }

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const req = invokeRequest(ctx.scope, ctx.component.params);
    const url = new URL(req.url);
    let body: string | undefined;
    const headers: Record<string, string> = { ...req.headers };
    if (req.method === 'GET') {
      for (const [k, v] of Object.entries(req.args)) {
        url.searchParams.append(k, typeof v === 'string' ? v : JSON.stringify(v));
      }
    } else if (req.datatype === 'json') {
      body = JSON.stringify(req.args);
      headers['Content-Type'] ??= 'application/json';
    } else {
      body = new URLSearchParams(
        Object.entries(req.args).map(([k, v]): [string, string] => [
          k,
          typeof v === 'string' ? v : JSON.stringify(v),
        ]),
      ).toString();
      headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
    }
    let text: string;
    let status: number;
    try {
      const res = await this.fetcher(url, {
        method: req.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(req.timeoutMs)]),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      if (ctx.signal.aborted) {
        throw err;
      }
      const e = err as Error & { cause?: { message?: string } };
      const reason =
        e.name === 'TimeoutError'
          ? `no answer within ${req.timeoutMs / 1000} s`
          : `${e.message}${e.cause?.message ? ` (${e.cause.message})` : ''}`;
      throw new GraphException(GraphErrorCode.ComponentFailed, `Http request error: ${reason}`);
    }
    const result = req.cleanHtml ? htmlText(text) : text;
    return { outputs: { result }, summary: `Invoke: ${req.method} ${url.origin}${url.pathname} → ${status}` };
  }
}
