import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

// Tracing for every service: W3C trace context travels in NATS message headers, so one trace per
// run spans the gateway, the orchestrator's steps, every node task, its model and tool calls and
// the delta back. Off (the API's no-op tracer) unless an OTLP endpoint is configured by the
// standard variables; OTEL_SDK_DISABLED=true turns it off whatever else is set.

const TRACER = 'switchyard';
let provider: NodeTracerProvider | undefined;

/** Whether the environment asks for traces (an OTLP endpoint, not disabled). */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env['OTEL_SDK_DISABLED'] ?? '').toLowerCase() === 'true') {
    return false;
  }
  if ((env['OTEL_TRACES_EXPORTER'] ?? '').toLowerCase() === 'none') {
    return false;
  }
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
}

/**
 * Starts the tracer provider for `service` when configured (batching OTLP/HTTP exporter; the
 * exporter reads OTEL_EXPORTER_OTLP_* itself, the batch processor OTEL_BSP_*). Idempotent.
 */
export function initTelemetry(service: string): boolean {
  if (provider || !tracingConfigured()) {
    return Boolean(provider);
  }
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': process.env['OTEL_SERVICE_NAME'] ?? `switchyard-${service}`,
      'service.namespace': 'switchyard',
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return true;
}

/** Flushes and stops the provider (on shutdown, so the last spans are exported). */
export async function shutdownTelemetry(): Promise<void> {
  const p = provider;
  provider = undefined;
  await p?.shutdown().catch(() => undefined);
}

export const tracer = () => trace.getTracer(TRACER);

/** Whether this process exports traces (a cheap check before building spans or headers). */
export function tracingEnabled(): boolean {
  return provider !== undefined;
}

/** Whether a trace is active (a span here, or one a message brought): it travels with what is published. */
export function tracingActive(): boolean {
  if (provider === undefined) {
    return false;
  }
  const sc = trace.getSpanContext(context.active());
  return sc !== undefined && trace.isSpanContextValid(sc);
}

/** Something that carries string headers (NATS `MsgHdrs`, a plain record). */
export interface HeaderCarrier {
  get(key: string): string;
  set(key: string, value: string): void;
}

/** Writes the current (or given) trace context into message headers. */
export function injectTrace(carrier: HeaderCarrier, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier, {
    set: (c, k, v) => c.set(k, v),
  });
}

/** The trace context message headers carry (the active one when they carry none). */
export function extractTrace(carrier: HeaderCarrier | undefined): Context {
  if (!carrier) {
    return context.active();
  }
  return propagation.extract(context.active(), carrier, {
    get: (c, k) => c.get(k) || undefined,
    keys: () => ['traceparent', 'tracestate'],
  });
}

/** The context of a `traceparent` string (stored with a task, say). */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  if (!traceparent) {
    return context.active();
  }
  const headers = new Map([['traceparent', traceparent]]);
  return extractTrace({ get: (k) => headers.get(k) ?? '', set: () => undefined });
}

/** The active span's `traceparent` (undefined when none is recording). */
export function currentTraceparent(ctx: Context = context.active()): string | undefined {
  const out = new Map<string, string>();
  injectTrace({ get: (k) => out.get(k) ?? '', set: (k, v) => out.set(k, v) }, ctx);
  return out.get('traceparent');
}

/** The active trace and span ids, for structured logs (empty when tracing is off). */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  const sc = span?.spanContext();
  return sc && trace.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}

/**
 * Runs `fn` in a new span (child of `parent`, default the active context); an error is recorded
 * on the span and rethrown. `fn` may add attributes (tokens known at the end, say).
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  opts: { parent?: Context; kind?: SpanKind } = {},
): Promise<T> {
  const span = tracer().startSpan(
    name,
    { attributes, kind: opts.kind ?? SpanKind.INTERNAL },
    opts.parent ?? context.active(),
  );
  const ctx = trace.setSpan(opts.parent ?? context.active(), span);
  try {
    return await context.with(ctx, () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

export { SpanKind, SpanStatusCode, context, trace };
export type { Attributes, Context, Span };
