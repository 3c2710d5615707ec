import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  type CodeExecParams,
  GraphErrorCode,
  GraphException,
  codeExecArguments,
  codeExecOutputs,
  codeExecParams,
  type ComponentContext,
  type ComponentEffect,
} from '@switchyard/graph';
import { CodeSandbox, type RunCodeFailure } from '@switchyard/sandbox';
import type { ComponentRunner } from '../component-runner';
import type { GraphTool, GraphToolFactory } from '../graph-tool';
import { providerTool } from './provider-tool';

/** Why the code gave no result, as the run's error says it (the runner prefixes the component). */
function failureMessage(f: RunCodeFailure): string {
  switch (f.failure) {
    case 'timeout':
      return `CodeExec timed out: ${f.message} (SANDBOX_TIMEOUT_MS)`;
    case 'memory_limit':
      return `CodeExec ran out of memory: ${f.message} (SANDBOX_MEMORY_MB)`;
    case 'code_error':
      // RAGFlow's `_ERROR` is the script's stderr: the traceback.
      return f.traceback ?? f.message;
    case 'sandbox_unavailable':
      return `CodeExec cannot run here: ${f.message}`;
    case 'cancelled':
      return `CodeExec was cancelled: ${f.message}`;
  }
}

/**
 * RAGFlow's CodeExec: the script's `main` runs in the sandbox (a child process per run, with the
 * service's time and memory limits) on the resolved arguments; its value becomes the outputs.
 */
/** What the model is told of `execute_code` (RAGFlow's tool, in our words). */
const CODE_TOOL_DESCRIPTION = [
  'This tool has a sandbox that runs a piece of code written in Python or JavaScript and returns its result as a JSON string.',
  'The code MUST define a `main` function; what it returns is the result. Python:',
  'def main() -> dict:',
  '    return {"result": sum(range(10))}',
  'JavaScript (export `main`):',
  'async function main() { return { result: 45 }; }',
  'module.exports = { main };',
].join('\n');

@Injectable()
export class CodeExecComponent implements OnApplicationBootstrap, GraphToolFactory, ComponentRunner {
  readonly names: readonly string[] = ['CodeExec'];
  readonly componentName = 'CodeExec';
  private readonly logger = new Logger(CodeExecComponent.name);

  constructor(@Inject(CodeSandbox) private readonly sandbox: CodeSandbox) {}

  onApplicationBootstrap(): void {
    // Said once at start-up, so an operator sees why Python canvases will fail on this machine.
    const python = this.sandbox.pythonConfinement();
    if (!python.available) {
      this.logger.warn(`CodeExec will refuse Python: the sandbox needs ${python.missing}`);
    }
  }

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const params = codeExecParams(ctx.component.params);
    const r = await this.execute(params, codeExecArguments(ctx.scope, params), ctx.signal);
    if (!r.ok) {
      throw new GraphException(GraphErrorCode.ComponentFailed, failureMessage(r));
    }
    const outputs = codeExecOutputs(params, r.result);
    return { outputs, summary: `CodeExec (${params.language}): ${String(outputs['actual_type'])}` };
  }

  /**
   * RAGFlow's CodeExec as an Agent tool (`execute_code`): the model writes `lang` and `script`;
   * each of the entry's `arguments` is the model's value of that name when it gives one, else
   * the canvas value it refers to. The model reads the outputs as JSON — `_ERROR` set when the
   * code failed — as RAGFlow hands a tool's output dict back.
   */
  create(entry: { name?: string; params: Record<string, unknown> }, index: number): GraphTool {
    return providerTool({
      functionName: 'execute_code',
      index,
      entryParams: entry.params,
      description: CODE_TOOL_DESCRIPTION,
      parameters: {
        type: 'object',
        properties: {
          lang: {
            type: 'string',
            enum: ['python', 'javascript'],
            description: 'The programming language of this piece of code.',
          },
          script: {
            type: 'string',
            description: 'A piece of code in right format. There MUST be main function.',
          },
        },
        required: ['lang', 'script'],
      },
      errorPrefix: 'CodeExec',
      call: async (args, ctx) => {
        const params = codeExecParams({
          ...entry.params,
          lang: args['lang'] ?? entry.params['lang'],
          script: args['script'] ?? entry.params['script'],
        });
        const resolved = codeExecArguments(ctx.scope, params);
        for (const name of Object.keys(params.arguments)) {
          if (args[name]) {
            resolved[name] = args[name];
          }
        }
        const r = await this.execute(params, resolved, ctx.signal);
        return JSON.stringify(r.ok ? codeExecOutputs(params, r.result) : { _ERROR: failureMessage(r) });
      },
    });
  }

  private execute(params: CodeExecParams, args: Record<string, unknown>, signal: AbortSignal) {
    return this.sandbox.run(
      {
        language: params.language,
        code: params.script,
        args,
        timeoutMs: this.sandbox.config.timeoutMs,
        memoryMb: this.sandbox.config.memoryMb,
      },
      { signal },
    );
  }
}
