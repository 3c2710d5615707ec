import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  ROOT_CONTEXT,
  TraceFlags,
  context,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator, parseTraceParent } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

// Tracing for every service. One trace per run spans the gateway (`run.create`), the
// orchestrator's steps, every node task, its model and tool calls and the delta back. The W3C
// trace context travels inside what the services already read: the run's row
// (`runs.trace_parent`), the task and delta messages (`trace: { traceparent }`) and the task rows.
// Not in NATS headers: encoding, sending and parsing a header on every message cost more than the
// spans themselves (tools/bench/TRACING-RESULTS.md). A trace the sampler dropped costs nothing
// beyond carrying its traceparent string along: no span objects, no context switch. Off (the
// API's no-op tracer) unless an OTLP endpoint is configured by the standard variables;
// OTEL_SDK_DISABLED=true turns it off whatever else is set.

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

/** The trace and span ids of a traceparent, for log lines written where no span is current. */
export function traceIdsOf(traceparent: string | undefined): { trace_id?: string; span_id?: string } {
  const [, traceId, spanId] = traceparent?.split('-') ?? [];
  return traceId && spanId ? { trace_id: traceId, span_id: spanId } : {};
}

/** The active trace and span ids, for structured logs (empty when tracing is off). */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  const sc = span?.spanContext();
  return sc && trace.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}

/** The context of a traceparent whose trace is kept (sampled flag set, well formed); else undefined. */
export function sampledParent(traceparent: string | undefined): Context | undefined {
  if (!traceparent || provider === undefined) {
    return undefined;
  }
  const sc = parseTraceParent(traceparent);
  if (!sc || !(sc.traceFlags & TraceFlags.SAMPLED)) {
    return undefined;
  }
  return trace.setSpanContext(ROOT_CONTEXT, { ...sc, isRemote: true });
}

/** A span's traceparent (W3C), to send with the messages published on its behalf. */
export function traceparentOf(span: Span): string {
  const sc = span.spanContext();
  return `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}

/** Whether the active span records (a kept trace): child spans are worth making only then. */
export function recording(): boolean {
  return provider !== undefined && trace.getActiveSpan()?.isRecording() === true;
}

/**
 * The traceparent to send with a message published here: the active span's when it records, else
 * the one the message being handled carried (a dropped trace's travels on unchanged, so the
 * services downstream drop it too).
 */
export function messageTrace(carried?: string): string | undefined {
  return recording() ? traceparentOf(trace.getActiveSpan() as Span) : carried;
}

/** `{ trace }` to spread into a message, or nothing when there is no trace to carry. */
export function withTrace(traceparent: string | null | undefined): { trace?: { traceparent: string } } {
  return traceparent ? { trace: { traceparent } } : {};
}

/**
 * Handles a message in the trace it carries, without making it the active context: `fn` gets the
 * traceparent to send on (a new span's, child of the message's; or the message's own when its
 * trace is not kept or tracing is off). For hot paths that pass the trace explicitly (the
 * orchestrator's steps): no AsyncLocalStorage switch, and nothing at all for a dropped trace.
 */
export async function inRemoteSpan<T>(
  name: string,
  carried: string | undefined,
  attributes: () => Attributes,
  fn: (traceparent: string | undefined) => Promise<T>,
  kind: SpanKind = SpanKind.CONSUMER,
): Promise<T> {
  const parent = sampledParent(carried);
  if (!parent) {
    return fn(carried);
  }
  const span = tracer().startSpan(name, { attributes: attributes(), kind }, parent);
  return ended(span, () => fn(traceparentOf(span)));
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
  return ended(span, () => context.with(ctx, () => fn(span)));
}

/** Ends `span` when `fn` settles; an error is recorded on it and rethrown. */
async function ended<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
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
