import type { Server } from 'node:http';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ServiceConfig } from '@switchyard/platform';

/**
 * The gateway's drain: on shutdown the HTTP server stops accepting (Nest closes it after the
 * shutdown hooks), requests under way finish, SSE streams end with a reconnectable `close`
 * (RunEventStreams) — and the keep-alive connections they and finished requests leave idle are
 * closed as soon as they are idle, instead of holding the process for the keep-alive timeout.
 * Whatever is still open after SWITCHYARD_DRAIN_TIMEOUT_MS is cut.
 */
@Injectable()
export class HttpDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger(HttpDrain.name);

  constructor(
    @Inject(HttpAdapterHost) private readonly host: HttpAdapterHost,
    @Inject(ServiceConfig) private readonly config: ServiceConfig,
  ) {}

  beforeApplicationShutdown(): void {
    const server = this.host.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) {
      return;
    }
    this.logger.log({ msg: 'draining HTTP: streams end, idle connections close' });
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    idle.unref();
    const cut = setTimeout(() => {
      this.logger.warn({ msg: 'drain timeout: closing the connections still open' });
      server.closeAllConnections();
    }, this.config.env.SWITCHYARD_DRAIN_TIMEOUT_MS);
    cut.unref();
    server.once('close', () => {
      clearInterval(idle);
      clearTimeout(cut);
      this.logger.log({ msg: 'HTTP server closed' });
    });
  }
}
