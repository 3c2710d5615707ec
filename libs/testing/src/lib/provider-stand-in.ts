import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a stand-in received. */
export interface StandInRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
}

type Reply = {
  status?: number;
  json?: unknown;
  text?: string;
  delayMs?: number;
  headers?: Record<string, string>;
};

/**
 * A local HTTP server standing in for an external provider (Tavily, Yahoo Finance, a site an
 * Invoke calls) on 127.0.0.1: routes answer what the test set, every request is recorded.
 */
export class ProviderStandIn {
  readonly requests: StandInRequest[] = [];
  private readonly routes = new Map<string, (req: StandInRequest) => Reply>();
  private server?: Server;

  /** Answers `METHOD /path` (no query) with a fixed reply or one computed from the request. */
  on(method: string, path: string, reply: Reply | ((req: StandInRequest) => Reply)): this {
    this.routes.set(`${method.toUpperCase()} ${path}`, typeof reply === 'function' ? reply : () => reply);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      chunks.push(chunk as Buffer);
    }
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const record: StandInRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(record);
    const route = this.routes.get(`${record.method} ${record.path}`);
    const reply = route
      ? route(record)
      : { status: 404, json: { error: `no route ${record.method} ${record.path}` } };
    if (reply.delayMs) {
      await new Promise((r) => setTimeout(r, reply.delayMs));
    }
    if (res.destroyed) {
      return;
    }
    const text = reply.text ?? JSON.stringify(reply.json ?? {});
    res.writeHead(reply.status ?? 200, {
      'Content-Type': reply.text !== undefined ? 'text/plain; charset=utf-8' : 'application/json',
      ...reply.headers,
    });
    res.end(text);
  }
}

/** Yahoo's fundamentals time series answer for the given lines (`annualTotalAssets`, …) and dates. */
export function yahooTimeseries(points: Record<string, Record<string, number>>): unknown {
  return {
    timeseries: {
      result: Object.entries(points).map(([type, byDate]) => ({
        meta: { symbol: ['AAPL'], type: [type] },
        timestamp: Object.keys(byDate).map((d) => Date.parse(d) / 1000),
        [type]: Object.entries(byDate).map(([asOfDate, raw]) => ({
          asOfDate,
          periodType: '12M',
          currencyCode: 'USD',
          reportedValue: { raw, fmt: String(raw) },
        })),
      })),
      error: null,
    },
  };
}
