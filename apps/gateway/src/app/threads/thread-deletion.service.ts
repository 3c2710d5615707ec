import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { eventsKey } from '@switchyard/events';
import { ThreadsRepository } from './threads.repository';

/**
 * Deleting a thread, or one run of it, with what lives outside Postgres: the runs' event streams
 * in Redis. Postgres first (in one transaction, refused while a run is under way or waiting), then
 * the streams: a crash between the two leaves only streams that expire with retention.
 */
@Injectable()
export class ThreadDeletion {
  constructor(
    @Inject(ThreadsRepository) private readonly threads: ThreadsRepository,
    @Inject(Redis) private readonly redis: Redis,
  ) {}

  /** Deletes the tenant's thread and what its runs wrote; answers the ids of the runs deleted. */
  async delete(tenantId: string, threadId: string): Promise<string[]> {
    const runs = await this.threads.delete(tenantId, threadId);
    if (runs.length) {
      await this.redis.del(...runs.map(eventsKey));
    }
    return runs;
  }

  /** Deletes one ended run of the thread (its checkpoints stay: they are the thread's history). */
  async deleteRun(tenantId: string, threadId: string, runId: string): Promise<void> {
    await this.threads.deleteRun(tenantId, threadId, runId);
    await this.redis.del(eventsKey(runId));
  }
}
