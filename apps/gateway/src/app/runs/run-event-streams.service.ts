import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import { PgStateSource } from '@switchyard/persistence';
import { GatewayConfig } from '../gateway.config';
import { type StreamEncoding, streamRunEvents } from './run-event-stream';

/**
 * Streams a run's events as SSE (`streamRunEvents`) with the gateway's hub, stores and heartbeat.
 * A stream lives at most `SWITCHYARD_SSE_MAX_LIFETIME_MS`, and every open stream is ended when
 * the gateway shuts down — both with a `close` event telling the client to reconnect — so a
 * rolling restart or a load balancer never waits on a stream that would not end by itself.
 */
@Injectable()
export class RunEventStreams implements BeforeApplicationShutdown {
  private readonly open = new Set<AbortController>();
  private closing = false;

  constructor(
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  /** Before the HTTP server closes (it would wait for every open stream): end them all. */
  beforeApplicationShutdown(): void {
    // Streams opened from now on (clients reconnecting while the server still listens) end at once.
    this.closing = true;
    for (const stop of this.open) {
      stop.abort('shutdown');
    }
  }

  async stream(
    res: Response,
    runId: string,
    cursor: string | null,
    encoding?: StreamEncoding,
  ): Promise<void> {
    const stop = new AbortController();
    if (this.closing) {
      stop.abort('shutdown');
    }
    this.open.add(stop);
    const lifetime =
      this.config.sseMaxLifetimeMs > 0
        ? setTimeout(() => stop.abort('lifetime'), this.config.sseMaxLifetimeMs)
        : null;
    try {
      await this.run(res, runId, cursor, stop.signal, encoding);
    } finally {
      if (lifetime) {
        clearTimeout(lifetime);
      }
      this.open.delete(stop);
    }
  }

  private run(
    res: Response,
    runId: string,
    cursor: string | null,
    stop: AbortSignal,
    encoding?: StreamEncoding,
  ): Promise<void> {
    return streamRunEvents(
      res,
      runId,
      cursor,
      {
        hub: this.hub,
        reader: this.reader,
        ds: this.ds,
        states: this.states,
        heartbeatMs: this.config.heartbeatMs,
        stop,
      },
      encoding,
    );
  }
}
