import { trace } from '@opentelemetry/api';
import {
  contextOfTraceparent,
  currentTraceparent,
  extractTrace,
  inSpan,
  initTelemetry,
  injectTrace,
  shutdownTelemetry,
  traceIds,
  tracingActive,
  tracingConfigured,
} from './telemetry';

describe(tracingConfigured.name, () => {
  it('is on only with an OTLP endpoint, and off when disabled', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true);
    expect(
      tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(
      tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false);
  });
});

describe('with tracing on', () => {
  beforeAll(() => {
    // Nothing listens there: exports fail quietly; these tests read the context, not the export.
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = 'http://127.0.0.1:9';
    expect(initTelemetry('spec')).toBe(true);
  });

  afterAll(async () => {
    delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    await shutdownTelemetry();
  });

  it('carries the trace through message headers: the consumer continues the same trace', async () => {
    const headers = new Map<string, string>();
    const carrier = {
      get: (k: string) => headers.get(k) ?? '',
      set: (k: string, v: string) => headers.set(k, v),
    };
    const sent = await inSpan('publish', {}, async () => {
      expect(tracingActive()).toBe(true);
      injectTrace(carrier);
      return traceIds();
    });
    expect(headers.get('traceparent')).toMatch(new RegExp(`^00-${sent.trace_id}-${sent.span_id}-01$`));
    const received = await inSpan('consume', {}, async () => traceIds(), { parent: extractTrace(carrier) });
    expect(received.trace_id).toBe(sent.trace_id);
    expect(received.span_id).not.toBe(sent.span_id);
  });

  it('restores a stored traceparent, and records a failure on the span', async () => {
    const stored = await inSpan('step', {}, async () => currentTraceparent());
    expect(stored).toBeDefined();
    const ctx = contextOfTraceparent(stored);
    expect(trace.getSpanContext(ctx)?.traceId).toBe(stored?.split('-')[1]);
    let failed: ReturnType<typeof trace.getActiveSpan>;
    await expect(
      inSpan('failing', {}, async (span) => {
        failed = span;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((failed as unknown as { status: { code: number } }).status.code).toBe(2);
  });
});
