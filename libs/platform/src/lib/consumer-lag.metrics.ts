import { Gauge, register } from 'prom-client';
import type { JetStreamConnection } from '@switchyard/jetstream';

export interface WatchedConsumer {
  stream: string;
  durable: string;
}

/**
 * The lag of this service's JetStream consumers, read from the server when Prometheus scrapes:
 * messages not yet delivered (`num_pending`) and delivered but not acknowledged
 * (`num_ack_pending`). Every replica of a service reports the same shared consumer, so
 * dashboards take `max` over replicas. A consumer the server cannot describe is left out of that
 * scrape (and the failure counted), never reported as zero lag.
 */
export function watchConsumerLag(
  connection: JetStreamConnection,
  consumers: readonly WatchedConsumer[],
): void {
  const existing = register.getSingleMetric('switchyard_consumer_pending_messages');
  if (existing || consumers.length === 0) {
    return;
  }
  const failures = new Gauge({
    name: 'switchyard_consumer_info_failures',
    help: 'Consumers whose info could not be read at the last scrape',
  });
  const ackPending = new Gauge({
    name: 'switchyard_consumer_ack_pending_messages',
    help: 'Messages delivered to the consumer and not yet acknowledged',
    labelNames: ['stream', 'consumer'],
  });
  new Gauge({
    name: 'switchyard_consumer_pending_messages',
    help: 'Messages of the stream the consumer has not delivered yet (its lag)',
    labelNames: ['stream', 'consumer'],
    async collect() {
      this.reset();
      ackPending.reset();
      let failed = 0;
      await Promise.all(
        consumers.map(async (c) => {
          try {
            const info = await connection.jsm.consumers.info(c.stream, c.durable);
            this.set({ stream: c.stream, consumer: c.durable }, info.num_pending);
            ackPending.set({ stream: c.stream, consumer: c.durable }, info.num_ack_pending);
          } catch {
            failed++;
          }
        }),
      );
      failures.set(failed);
    },
  });
}
