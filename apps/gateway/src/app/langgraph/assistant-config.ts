import { type AgentConfig, AgentConfigSchema, describeZodError } from '@switchyard/contracts';
import { ApiException } from '../http/api.exception';

// An assistant made with `POST /assistants` is an agent configured from another (its graph):
// the graph's configuration, with the assistant's `config.configurable` and `context` keys over it.

/** The agent settings an assistant may set (a graph's kind and DSL are the graph's own). */
export const ASSISTANT_SETTINGS = [
  'system_prompt',
  'models',
  'tools',
  'max_steps',
  'output_tools',
  'node_timeouts_ms',
] as const;

const invalid = ApiException.invalidField;

/**
 * The assistant's agent configuration: `base` (its graph's) named `name`, with `context`'s and
 * `config.configurable`'s settings over it (context last), and `config.recursion_limit` as
 * `max_steps`. A key that is no setting, or a value a setting does not take, is a 400 naming it.
 */
export function assistantAgentConfig(
  base: AgentConfig,
  name: string,
  config: Record<string, unknown>,
  context: Record<string, unknown>,
): AgentConfig {
  const out: Record<string, unknown> = { ...base, name };
  const apply = (settings: unknown, field: string) => {
    if (settings === undefined || settings === null) {
      return;
    }
    if (typeof settings !== 'object' || Array.isArray(settings)) {
      throw invalid(field, 'must be an object of agent settings');
    }
    for (const [key, value] of Object.entries(settings)) {
      if (!(ASSISTANT_SETTINGS as readonly string[]).includes(key)) {
        throw invalid(`${field}.${key}`, `not an agent setting (${ASSISTANT_SETTINGS.join(', ')})`);
      }
      const parsed = AgentConfigSchema.shape[key as (typeof ASSISTANT_SETTINGS)[number]].safeParse(value);
      if (!parsed.success) {
        throw invalid(`${field}.${key}`, describeZodError(parsed.error));
      }
      out[key] = parsed.data;
    }
  };
  for (const [key, value] of Object.entries(config)) {
    if (key === 'configurable') {
      apply(value, 'config.configurable');
    } else if (key === 'recursion_limit') {
      const steps = AgentConfigSchema.shape.max_steps.safeParse(value);
      if (!steps.success) {
        throw invalid('config.recursion_limit', describeZodError(steps.error));
      }
      out['max_steps'] = steps.data;
    } else if (!(key === 'tags' && Array.isArray(value) && value.length === 0)) {
      throw invalid(`config.${key}`, 'not supported (config takes configurable and recursion_limit)');
    }
  }
  apply(context, 'context');
  return AgentConfigSchema.parse(out);
}
