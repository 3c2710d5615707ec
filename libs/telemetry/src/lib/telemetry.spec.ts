import { trace } from '@opentelemetry/api';
import {
  inRemoteSpan,
  inSpan,
  initTelemetry,
  messageTrace,
  recording,
  sampledParent,
  shutdownTelemetry,
  traceIds,
  traceIdsOf,
  traceparentOf,
  tracingConfigured,
  withTrace,
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

  it('carries the trace in a message: the handler continues the same trace', async () => {
    const sent = await inSpan('publish', {}, async () => {
      expect(recording()).toBe(true);
      return { ids: traceIds(), message: { task_id: 't', ...withTrace(messageTrace()) } };
    });
    expect(sent.message.trace?.['traceparent']).toBe(`00-${sent.ids.trace_id}-${sent.ids.span_id}-01`);
    const received = await inSpan('consume', {}, async () => traceIds(), {
      parent: sampledParent(sent.message.trace?.['traceparent']),
    });
    expect(received.trace_id).toBe(sent.ids.trace_id);
    expect(received.span_id).not.toBe(sent.ids.span_id);
  });

  it('opens a step span of a carried trace without making it current, and sends its own traceparent on', async () => {
    const carried = await inSpan('task', {}, async (span) => traceparentOf(span));
    const [, traceId, parentId] = carried.split('-');
    const onward = await inRemoteSpan(
      'step',
      carried,
      () => ({ run_id: 'r' }),
      async (tp) => {
        expect(trace.getActiveSpan()).toBeUndefined();
        return tp;
      },
    );
    const [, onTrace, onSpan, flags] = (onward ?? '').split('-');
    expect(traceIdsOf(onward)).toEqual({ trace_id: onTrace, span_id: onSpan });
    expect(traceIdsOf(undefined)).toEqual({});
    expect(onTrace).toBe(traceId);
    expect(onSpan).not.toBe(parentId);
    expect(flags).toBe('01');
  });

  it('costs a dropped trace nothing: no span, the traceparent passed on as it came', async () => {
    const dropped = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
    expect(sampledParent(dropped)).toBeUndefined();
    expect(
      await inRemoteSpan(
        'step',
        dropped,
        () => ({}),
        async (tp) => tp,
      ),
    ).toBe(dropped);
    expect(
      await inRemoteSpan(
        'step',
        undefined,
        () => ({}),
        async (tp) => tp,
      ),
    ).toBeUndefined();
    // A message without a kept trace makes no root span of its own downstream.
    expect(recording()).toBe(false);
    expect(messageTrace(dropped)).toBe(dropped);
    expect(withTrace(dropped)).toEqual({ trace: { traceparent: dropped } });
    expect(withTrace(undefined)).toEqual({});
    // Malformed: ignored, not thrown.
    expect(sampledParent('00-nothex-01')).toBeUndefined();
  });

  it('records a failure on the span, and on a step span too', async () => {
    let failed: ReturnType<typeof trace.getActiveSpan>;
    await expect(
      inSpan('failing', {}, async (span) => {
        failed = span;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((failed as unknown as { status: { code: number } }).status.code).toBe(2);
    const carried = await inSpan('task', {}, async (span) => traceparentOf(span));
    await expect(
      inRemoteSpan(
        'step',
        carried,
        () => ({}),
        async () => {
          throw new Error('step failed');
        },
      ),
    ).rejects.toThrow('step failed');
  });
});
