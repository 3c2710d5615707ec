import type { AgentConfig } from '@switchyard/contracts';

/** One field of a Begin component's form, as RAGFlow's DSL keeps it. */
interface BeginField {
  name?: string;
  type?: string;
  optional?: boolean;
  options?: unknown[];
}

/** A graph agent's DSL as saved (JSON text or an object); null for an agent that is no canvas. */
export function canvasDslOf(config: AgentConfig): Record<string, unknown> | null {
  const dsl = config.kind === 'graph' ? config.dsl : undefined;
  if (typeof dsl === 'string') {
    try {
      return JSON.parse(dsl) as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  return dsl ?? null;
}

/** The params of a canvas's Begin component (its form, prologue, …); {} when it has none. */
export function beginParamsOf(dsl: Record<string, unknown> | null): Record<string, unknown> {
  const components =
    (dsl?.['components'] as
      Record<string, { obj?: { component_name?: string; params?: Record<string, unknown> } }> | undefined) ??
    {};
  return Object.values(components).find((c) => c.obj?.component_name === 'Begin')?.obj?.params ?? {};
}

const TYPES: Record<string, Record<string, unknown>> = {
  line: { type: 'string' },
  paragraph: { type: 'string' },
  integer: { type: 'integer' },
  float: { type: 'number' },
  boolean: { type: 'boolean' },
};

/**
 * The JSON Schema of a Begin form's values (`{field: value}`; null when it has no fields): each
 * field by its RAGFlow type — text, numbers, a yes/no, one of its options; a file field is a
 * string (a file's id).
 */
export function beginFormSchema(params: Record<string, unknown>): Record<string, unknown> | null {
  const fields = Object.entries((params['inputs'] as Record<string, BeginField> | undefined) ?? {});
  if (!fields.length) {
    return null;
  }
  return {
    type: 'object',
    properties: Object.fromEntries(
      fields.map(([key, f]) => [
        key,
        {
          ...(f.type === 'options' && Array.isArray(f.options)
            ? { type: 'string', enum: f.options.map(String) }
            : (TYPES[f.type ?? 'line'] ?? { type: 'string' })),
          description: f.name ?? key,
        },
      ]),
    ),
    required: fields.filter(([, f]) => !f.optional).map(([key]) => key),
  };
}
