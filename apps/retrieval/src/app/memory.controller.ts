import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { MemoryItem, RuntimeState } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';

const MAX_ITEMS = 5;
const MIN_SCORE = 0.2;

/**
 * `memory`: finds the earlier turns of the thread related to this turn's prompt and writes them
 * to `memory`. Related means lexical overlap (Jaccard over word sets) for now; vector search
 * over all of a user's threads replaces it with the retrieval work.
 */
@Controller()
export class MemoryController {
  constructor(@Inject(NodeRuntime) private readonly runtime: NodeRuntime) {}

  @NodeHandler({ name: 'memory', description: "Finds related history in the user's earlier turns." })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, async ({ state }: NodeInput): Promise<NodeOutput> => {
      const items = relatedTurns(state);
      return {
        preparation: `Compared the prompt with ${state.turn} earlier turn(s) of the thread.`,
        summary: items.length
          ? `Found ${items.length} related earlier turn(s).`
          : 'No related history found.',
        result: { found: items.length },
        patch: [{ op: 'replace', path: '/memory', value: items }],
        next: ['planner'],
      };
    });
  }
}

const words = (s: string): Set<string> => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

export function relatedTurns(state: Readonly<RuntimeState>): MemoryItem[] {
  const query = words(state.prompts[state.turn] ?? '');
  if (query.size === 0) {
    return [];
  }
  const items: MemoryItem[] = [];
  for (let turn = 0; turn < state.turn; turn++) {
    const content = `${state.prompts[turn] ?? ''}\n${answerOf(state, turn)}`.trim();
    const w = words(content);
    const shared = [...query].filter((x) => w.has(x)).length;
    const score = shared / (query.size + w.size - shared || 1);
    if (score >= MIN_SCORE) {
      items.push({ thread_id: state.thread_id, turn, content, score: Number(score.toFixed(4)) });
    }
  }
  return items.sort((a, b) => b.score - a.score).slice(0, MAX_ITEMS);
}

function answerOf(state: Readonly<RuntimeState>, turn: number): string {
  const out = [...(state.action_history[turn] ?? [])].reverse().find((a) => a.node === 'output');
  const answer = (out?.result as { answer?: unknown } | null)?.answer;
  return typeof answer === 'string' ? answer : '';
}
