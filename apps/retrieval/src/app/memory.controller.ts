import { Controller, Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { RuntimeState } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import {
  type EmbeddingModel,
  MemoryStore,
  UnknownEmbeddingModelError,
  memoryText,
} from '@switchyard/knowledge';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime, taskTenant } from '@switchyard/worker';
import {
  CATCH_UP_BATCH,
  MAX_ITEMS,
  VECTOR_MIN_SCORE,
  answerOf,
  describeItems,
  memoryItems,
  relatedTurns,
  userIdOf,
} from './memory.logic';
import { MemoryModels } from './memory-models';
import { RunsRepository } from './runs.repository';

/**
 * User memory, with the tenant's embedding model (MemoryModels: a registry model, or the built-in
 * hash model). `memory`, at intake time, finds the history related to this turn's prompt: with a
 * user (`metadata.user_id` of the run) it first embeds the user's finished turns not remembered
 * with that model yet (turns from before `archive` existed, and every turn again after the tenant
 * changed its model: the migration of existing memories), then searches them by cosine
 * similarity — never another user's or another tenant's (the tenant is the task's, the only one
 * the node acts for). Without one it keeps to this thread's
 * earlier turns (lexical overlap). `archive`, after `output`, writes the turn just answered into
 * the user's memory, so it is checkpointed and visible as a step of its own.
 */
@Controller()
export class MemoryController implements OnApplicationBootstrap {
  private readonly logger = new Logger(MemoryController.name);

  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(MemoryStore) private readonly memories: MemoryStore,
    @Inject(MemoryModels) private readonly models: MemoryModels,
    @Inject(RunsRepository) private readonly runs: RunsRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.logger.log({
      msg: "user memory: each tenant's embedding model (default hash-embedding-v1), exact cosine over each user's own turns",
    });
  }

  @NodeHandler({ name: 'memory', description: "Finds related history in the user's earlier turns." })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.remember(input));
  }

  private async remember({ state, task }: NodeInput): Promise<NodeOutput> {
    const tenantId = taskTenant(task);
    const run = await this.runs.metadataOf(task.run_id, tenantId);
    if (!run) {
      return this.threadLocal(state, `run ${task.run_id} not found, so its user is unknown`);
    }
    const who = userIdOf(run.metadata);
    if (who.userId === undefined) {
      return this.threadLocal(state, who.reason);
    }
    const owner = { tenantId, userId: who.userId };
    const embedder = await this.embedderOf(tenantId);
    if (!embedder.model) {
      return this.threadLocal(state, embedder.reason);
    }
    const model = embedder.model;
    const embedded = await this.memories.catchUp(owner, model, CATCH_UP_BATCH);
    const prompt = state.prompts[state.turn] ?? '';
    const hits = prompt.trim()
      ? await this.memories.search(owner, model, prompt, {
          topK: MAX_ITEMS,
          threshold: VECTOR_MIN_SCORE,
          excludeRunId: task.run_id,
        })
      : [];
    const items = memoryItems(hits);
    return {
      preparation:
        `Embedded ${embedded} finished turn(s) of user "${who.userId}" not yet remembered with ${model.name}; ` +
        `exact cosine search over the user's turns, top ${MAX_ITEMS}, threshold ${VECTOR_MIN_SCORE}.`,
      summary: items.length
        ? `Recalled ${items.length} related turn(s) from the user's history:\n${describeItems(items)}`
        : "No related history in the user's earlier turns.",
      result: { scope: 'user', user_id: who.userId, model: model.name, embedded, found: items.length, items },
      patch: [{ op: 'replace', path: '/memory', value: items }],
      next: ['planner'],
    };
  }

  @NodeHandler({ name: 'archive', description: "Writes the answered turn into the user's memory." })
  handleArchive(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.archive(input));
  }

  /**
   * The end of a turn of a run with a user: embeds the prompt and the answer `output` gave with
   * the tenant's model and stores them (once per run and model: a redelivery stores nothing
   * twice). The run ends here whatever happens: a model the registry no longer has is reported in
   * the result, not as a failure of the answered run.
   */
  private async archive({ state, task }: NodeInput): Promise<NodeOutput> {
    const tenantId = taskTenant(task);
    const run = await this.runs.metadataOf(task.run_id, tenantId);
    const who = run ? userIdOf(run.metadata) : { userId: undefined, reason: `run ${task.run_id} not found` };
    if (!run || who.userId === undefined) {
      return {
        summary: `Nothing archived: ${who.userId === undefined ? who.reason : 'no user'}.`,
        result: { archived: 0 },
        next: [],
      };
    }
    const embedder = await this.embedderOf(tenantId);
    if (!embedder.model) {
      return {
        summary: `Nothing archived: ${embedder.reason}.`,
        result: { archived: 0, user_id: who.userId, error: embedder.reason },
        next: [],
      };
    }
    const turn = state.turn;
    const prompt = state.prompts[turn] ?? '';
    const answer = answerOf(state, turn);
    const archived = prompt.trim()
      ? await this.memories.remember({ tenantId, userId: who.userId }, embedder.model, [
          { run_id: task.run_id, thread_id: state.thread_id, turn, text: memoryText(prompt, answer) },
        ])
      : 0;
    return {
      preparation: `Embedded the turn with ${embedder.model.name}.`,
      summary: archived
        ? `Archived turn ${turn} into the memory of user "${who.userId}".`
        : `Turn ${turn} was archived already (or has no prompt).`,
      result: { archived, user_id: who.userId, model: embedder.model.name },
      next: [],
    };
  }

  /** The tenant's memory model, or why there is none to use. */
  private async embedderOf(
    tenantId: string,
  ): Promise<{ model: EmbeddingModel; reason?: undefined } | { model?: undefined; reason: string }> {
    try {
      return { model: await this.models.forTenant(tenantId) };
    } catch (err) {
      if (err instanceof UnknownEmbeddingModelError) {
        return {
          reason: `the tenant's memory embedding model "${err.model}" is not in the model registry`,
        };
      }
      throw err;
    }
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
}
