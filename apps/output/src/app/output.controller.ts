import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { type JsonPatchOperation, type Usage, clientRequestOf } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { ChatModels } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime, taskTenant } from '@switchyard/worker';
import { gatherMaterial } from './output-material';
import { type OutputToolChoice, chooseOutputTools, plannerChoice } from './output-tools';
import { RunOutputContextRepository } from './run-output-context.repository';
import { MarkdownAnswerTool } from './tools/markdown-answer.tool';
import { type StructureEntry, StructuredOutputTool } from './tools/structured-output.tool';
import { TitleGenerator } from './tools/title.generator';

/** What the output action's result holds; the orchestrator stores it as the run's `output`. */
export interface RunOutput {
  answer: string;
  title: string;
  /** The filled output structure when `output_structured` served, else null. */
  structured: StructureEntry[] | null;
}

/**
 * `output`: the end of the default flow. Runs the output tools the planner's final call chose
 * (kept to those the run's agent allows): `output` streams the Markdown answer as `token` events,
 * `output_structured` fills the output structure; names the thread on its first answer; appends
 * the answer to chat_history. Its result becomes the run's output. A run with a user
 * (`metadata.user_id`) goes on to `archive`, which writes the turn into the user's memory;
 * otherwise `next` is [] (the run ends).
 */
@Controller()
export class OutputController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(RunOutputContextRepository) private readonly runs: RunOutputContextRepository,
    @Inject(MarkdownAnswerTool) private readonly markdown: MarkdownAnswerTool,
    @Inject(StructuredOutputTool) private readonly structuredTool: StructuredOutputTool,
    @Inject(TitleGenerator) private readonly titles: TitleGenerator,
  ) {}

  @NodeHandler({
    name: 'output',
    description:
      'Writes the final answer with the chosen output tools (output, output_structured) and streams it.',
  })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.finish(input));
  }

  private async finish({ state, signal, emitToken, task }: NodeInput): Promise<NodeOutput> {
    const run = await this.runs.forRun(task.run_id, taskTenant(task));
    // A response_format of the client's request: the answer is that JSON, written by output_structured.
    const format = clientRequestOf(state).response_format;
    const choice: OutputToolChoice = format
      ? { tools: ['output_structured'], dropped: [] }
      : chooseOutputTools(plannerChoice(state), run.allowedTools);
    const material = gatherMaterial(state);
    const log = { run_id: task.run_id, thread_id: task.thread_id, task_id: task.task_id };

    // The three calls are independent: run them side by side so the title costs no latency.
    const [markdown, structured, title] = await Promise.all([
      choice.tools.includes('output')
        ? this.markdown.write(material, emitToken, signal, task.run_id)
        : undefined,
      format
        ? this.structuredTool.respond(format, material, signal)
        : choice.tools.includes('output_structured')
          ? this.structuredTool.fill(state.output_structure, material, signal)
          : undefined,
      // Named once: the thread's first answer generates the title, later turns reuse it.
      run.threadTitle === null
        ? this.titles.generate(material.prompt, material.goal, signal, log)
        : undefined,
    ]);

    const answer =
      structured && 'value' in structured ? { answer: JSON.stringify(structured.value) } : markdown;
    const output: RunOutput = {
      answer: answer?.answer ?? '',
      title: title?.title ?? run.threadTitle ?? '',
      structured: structured?.structured ?? null,
    };
    const usages: Usage[] = [markdown?.usage, structured?.usage, title?.usage].filter((u): u is Usage => !!u);
    // chat_history keeps what the user was given: the answer, or the structured result without one.
    const said = output.answer || (output.structured ? JSON.stringify(output.structured) : '');
    const patch: JsonPatchOperation[] = [
      ...(structured?.patch ?? []),
      { op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: said } },
    ];
    const notes = [
      `Output tools: ${choice.tools.join(', ')}${choice.dropped.length ? ` (not served: ${choice.dropped.join(', ')})` : ''}`,
      `material: ${material.context.length} context entries, ${material.completed.length} completed and ${material.failed.length} failed todos, ${material.results.length} results`,
      markdown?.reads.length
        ? `read kept data: ${markdown.reads.map((r) => `${r.reference}${r.path}${r.error ? ` (${r.error})` : ''}`).join(', ')}`
        : '',
      structured ? structured.note : '',
      title ? title.note : 'kept the thread title',
      `model ${this.models.modelName}`,
    ];
    return {
      preparation: `${notes.filter(Boolean).join('; ')}.`,
      summary: answer
        ? `Answered (${output.answer.length} characters).`
        : `Filled the output structure (${output.structured?.length ?? 0} entries).`,
      result: output,
      usage: sumUsages(usages),
      relevance: 1,
      patch,
      next: run.userId ? ['archive'] : [],
    };
  }
}
