import { Controller, Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { RuntimeState } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { type EmbeddingModel, MemoryStore } from '@switchyard/knowledge';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';
import {
  CATCH_UP_BATCH,
  MAX_ITEMS,
  VECTOR_MIN_SCORE,
  describeItems,
  memoryItems,
  relatedTurns,
  userIdOf,
} from './memory.logic';

/** The embedding model of user memory (the built-in hash model until the registry offers others). */
export const MEMORY_EMBEDDING_MODEL = Symbol('MEMORY_EMBEDDING_MODEL');

/**
 * `memory`: at intake time, finds the history related to this turn's prompt. With a user
 * (`metadata.user_id` of the run) it first embeds the user's finished turns not yet remembered
 * (all threads of the user in the run's tenant), then searches them by cosine similarity — never
 * another user's or another tenant's. Without one it keeps to this thread's earlier turns
 * (lexical overlap).
 */
@Controller()
export class MemoryController implements OnApplicationBootstrap {
  private readonly logger = new Logger(MemoryController.name);

  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(MemoryStore) private readonly memories: MemoryStore,
    @Inject(MEMORY_EMBEDDING_MODEL) private readonly embedder: EmbeddingModel,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    this.logger.log({ msg: `user memory: ${this.embedder.name}, exact cosine over each user's own turns` });
  }

  @NodeHandler({ name: 'memory', description: "Finds related history in the user's earlier turns." })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.remember(input));
  }

  private async remember({ state, task }: NodeInput): Promise<NodeOutput> {
    const run = await this.runOf(task.run_id);
    if (!run) {
      return this.threadLocal(state, `run ${task.run_id} not found, so its user is unknown`);
    }
    const who = userIdOf(run.metadata);
    if (who.userId === undefined) {
      return this.threadLocal(state, who.reason);
    }
    const owner = { tenantId: run.tenant_id, userId: who.userId };
    const embedded = await this.memories.catchUp(owner, this.embedder, CATCH_UP_BATCH);
    const prompt = state.prompts[state.turn] ?? '';
    const hits = prompt.trim()
      ? await this.memories.search(owner, this.embedder, prompt, {
          topK: MAX_ITEMS,
          threshold: VECTOR_MIN_SCORE,
          excludeRunId: task.run_id,
        })
      : [];
    const items = memoryItems(hits);
    return {
      preparation:
        `Embedded ${embedded} new finished turn(s) of user "${who.userId}" with ${this.embedder.name}; ` +
        `exact cosine search over the user's turns, top ${MAX_ITEMS}, threshold ${VECTOR_MIN_SCORE}.`,
      summary: items.length
        ? `Recalled ${items.length} related turn(s) from the user's history:\n${describeItems(items)}`
        : "No related history in the user's earlier turns.",
      result: { scope: 'user', user_id: who.userId, embedded, found: items.length, items },
      patch: [{ op: 'replace', path: '/memory', value: items }],
      next: ['planner'],
    };
  }

  private threadLocal(state: Readonly<RuntimeState>, reason: string): NodeOutput {
    const items = relatedTurns(state);
    return {
      preparation: `Compared the prompt with ${state.turn} earlier turn(s) of the thread.`,
      summary:
        (items.length
          ? `Found ${items.length} related earlier turn(s) of this thread:\n${describeItems(items)}`
          : 'No related history found.') + ` (Thread-local lexical memory only: ${reason}.)`,
      // The same result as before user memory existed (other tests and clients read it).
      result: { found: items.length },
      patch: [{ op: 'replace', path: '/memory', value: items }],
      next: ['planner'],
    };
  }

  private async runOf(runId: string): Promise<{ tenant_id: string; metadata: unknown } | undefined> {
    const [row] = (await this.ds.query(
      'SELECT tenant_id::text AS tenant_id, metadata FROM runs WHERE id = $1',
      [runId],
    )) as { tenant_id: string; metadata: unknown }[];
    return row;
  }
}
