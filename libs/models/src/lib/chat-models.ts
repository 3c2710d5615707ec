import { currentLlmCallContext } from './llm-call-context';
import type { ModelRouter } from './model-router';
import { RegistryChatModel } from './registry-chat-model';

export { LlmCallException, classifyLlmError } from './llm-errors';
export { usageOf } from './usage';

/**
 * Chat models from the model registry. `chat({ role })` gives a langchain chat model for a node
 * (role = node name: planner, reflection, output, intake, title…; default: the node of the
 * current task): the run's agent may pin a model per role, else the default model seeded from
 * `SWITCHYARD_LLM_*` serves. Keys, failover and metering happen inside each call.
 */
export class ChatModels {
  constructor(readonly router: ModelRouter) {}

  /** The default model's name (what serves roles the agent did not pin). */
  get modelName(): string {
    return this.router.defaultModelName;
  }

  /** `model`: a model the caller names itself, served when the registry has it (else the role's). */
  chat(opts: { role?: string; temperature?: number; model?: string } = {}): RegistryChatModel {
    return new RegistryChatModel(
      this.router,
      opts.role,
      opts.temperature ?? 0,
      currentLlmCallContext(),
      opts.model,
    );
  }
}
