import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import { PgStateSource } from '@switchyard/persistence';
import { GatewayConfig } from '../gateway.config';
import { type StreamEncoding, streamRunEvents } from './run-event-stream';

/** Streams a run's events as SSE (`streamRunEvents`) with the gateway's hub, stores and heartbeat. */
@Injectable()
export class RunEventStreams {
  constructor(
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(PgStateSource) private readonly states: PgStateSource,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  stream(res: Response, runId: string, cursor: string | null, encoding?: StreamEncoding): Promise<void> {
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
      },
      encoding,
    );
  }
}
