// RAGFlow's structured-output instruction (`rag/prompts/structured_output_prompt.md` rendered by
// `structured_output_prompt(schema)`, infiniflow/ragflow @ b1b8cd6, Apache-2.0, Copyright 2024 The
// InfiniFlow Authors), appended to an LLM/Agent system prompt when its `outputs.structured` is a
// JSON Schema with properties. Kept verbatim, so a model sees what it would see under RAGFlow.
const STRUCTURED_OUTPUT_PROMPT_HEAD =
  'You’re a helpful AI assistant. You could answer questions and output in JSON format.\nconstraints:\n    - You must output in JSON format.\n    - Do not output boolean value, use string type instead.\n    - Do not output integer or float value, use number type instead.\neg:\n    Here is the JSON schema:\n    {"properties": {"age": {"type": "number","description": ""},"name": {"type": "string","description": ""}},"required": ["age","name"],"type": "Object Array String Number Boolean","value": ""}\n\n    Here is the user\'s question:\n    My name is John Doe and I am 30 years old.\n\n    output:\n    {"name": "John Doe", "age": 30}\nHere is the JSON schema:\n    ';

/** The instruction for `schema`, as `json.dumps(schema, ensure_ascii=False, indent=2)` prints it. */
export function structuredOutputPrompt(schema: Record<string, unknown>): string {
  // json.dumps(indent=2, ensure_ascii=False) and JSON.stringify(…, 2) agree on JSON Schema values.
  return STRUCTURED_OUTPUT_PROMPT_HEAD + JSON.stringify(schema, null, 2);
}

/**
 * The JSON Schema an LLM or Agent must answer with (RAGFlow's `_get_output_schema`):
 * `outputs.structured` itself when it has properties, else its `schema` or `structured` member
 * that has; undefined when the component answers in text.
 */
export function structuredOutputSchema(
  params: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const outputs = params['outputs'];
  const cand =
    outputs && typeof outputs === 'object' ? (outputs as Record<string, unknown>)['structured'] : undefined;
  const withProperties = (v: unknown): v is Record<string, unknown> =>
    !!v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    !!(v as Record<string, unknown>)['properties'] &&
    typeof (v as Record<string, unknown>)['properties'] === 'object' &&
    Object.keys((v as Record<string, Record<string, unknown>>)['properties']).length > 0;
  if (!cand || typeof cand !== 'object') {
    return undefined;
  }
  if (withProperties(cand)) {
    return cand;
  }
  for (const k of ['schema', 'structured']) {
    const inner = (cand as Record<string, unknown>)[k];
    if (withProperties(inner)) {
      return inner;
    }
  }
  return undefined;
}
