import { Ajv, type ValidateFunction } from 'ajv';
import { LlmCallException } from './llm-errors';

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

/**
 * Validates a value against a registry parser's JSON Schema; returns what is wrong ('' = valid).
 * Schemas are compiled once per process (keyed by their text).
 */
export function jsonSchemaErrors(schema: Record<string, unknown>, value: unknown, where: string): string {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      throw new LlmCallException(
        `${where}: the registry's parser schema is not a valid JSON Schema: ${(err as Error).message}`,
        'invalid_parser',
        false,
      );
    }
    compiled.set(text, validate);
  }
  if (validate(value)) {
    return '';
  }
  return ajv.errorsText(validate.errors, { dataVar: 'reply', separator: '; ' });
}
