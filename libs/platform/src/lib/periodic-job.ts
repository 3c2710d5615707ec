import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';

/**
 * A pass that runs every `intervalMs` from start-up to shutdown, never two at once; a failed
 * pass is logged and the next one runs as usual. `intervalMs` null: the job is off.
 */
export abstract class PeriodicJob implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  protected abstract intervalMs(): number | null;
  protected abstract pass(): Promise<void>;

  onApplicationBootstrap(): void {
    const every = this.intervalMs();
    if (every === null) {
      return;
    }
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async tick(): Promise<void> {
    if (this.running) {
      return;
    }
    this.running = true;
    try {
      await this.pass();
    } catch (err) {
      this.logger.warn(`${this.constructor.name} pass failed: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}
