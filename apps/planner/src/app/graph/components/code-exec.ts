import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  GraphErrorCode,
  GraphException,
  codeExecArguments,
  codeExecOutputs,
  codeExecParams,
} from '@switchyard/graph';
import { CodeSandbox, type RunCodeFailure } from '@switchyard/sandbox';
import type { ComponentContext, ComponentEffect } from '../graph-components';

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
@Injectable()
export class CodeExecComponent implements OnApplicationBootstrap {
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
    const args = codeExecArguments(ctx.scope, params);
    const r = await this.sandbox.run(
      {
        language: params.language,
        code: params.script,
        args,
        timeoutMs: this.sandbox.config.timeoutMs,
        memoryMb: this.sandbox.config.memoryMb,
      },
      { signal: ctx.signal },
    );
    if (!r.ok) {
      throw new GraphException(GraphErrorCode.ComponentFailed, failureMessage(r));
    }
    const outputs = codeExecOutputs(params, r.result);
    return { outputs, summary: `CodeExec (${params.language}): ${String(outputs['actual_type'])}` };
  }
}
