import { Gauge, register } from 'prom-client';

/** Clients following a run's events on this gateway right now, by stream format. */
export const sseSubscribers =
  (register.getSingleMetric('switchyard_sse_subscribers') as Gauge | undefined) ??
  new Gauge({
    name: 'switchyard_sse_subscribers',
    help: "Open server-sent event streams of runs' events on this gateway",
    labelNames: ['format'],
  });
