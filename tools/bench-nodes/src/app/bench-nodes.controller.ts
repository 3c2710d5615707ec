import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { JetStreamContext } from '@switchyard/jetstream';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';
import { loopRounds, payload, plannerNext } from './runtime-loop';

/** The loop's nodes: each returns at once with a ~1 KB random result. */
@Controller()
export class BenchNodesController {
  constructor(@Inject(NodeRuntime) private readonly runtime: NodeRuntime) {}

  @NodeHandler({ name: 'intake', description: 'Benchmark loop: opens the turn.' })
  intake(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, () => answer('intake', ['planner']));
  }

  @NodeHandler({ name: 'planner', description: 'Benchmark loop: another tool round, or the end.' })
  planner(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, ({ state }: NodeInput) =>
      answer(
        'planner',
        plannerNext(state.action_history[state.turn] ?? [], loopRounds(state.prompts[state.turn] ?? '')),
      ),
    );
  }

  @NodeHandler({ name: 'tool', description: 'Benchmark loop: a tool that returns at once.' })
  tool(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, () => answer('tool', ['reflection']));
  }

  @NodeHandler({ name: 'reflection', description: 'Benchmark loop: back to the planner.' })
  reflection(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, () => answer('reflection', ['planner']));
  }
}

function answer(node: string, next: string[]): Promise<NodeOutput> {
  return Promise.resolve({ summary: node, result: payload(), next });
}
