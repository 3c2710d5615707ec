import type { z } from 'zod';
import { describeZodError } from '@switchyard/contracts';

/** The JSON of an LLM's reply (tolerating a ```json fence), or what is wrong with it. */
export function extractJson(text: string): { ok: true; json: unknown } | { ok: false; error: string } {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return { ok: true, json: JSON.parse(body) };
  } catch (err) {
    return { ok: false, error: `the reply is not JSON (${(err as Error).message})` };
  }
}

/** Parses an LLM's JSON reply (tolerating a ```json fence) into a schema, or says what is wrong. */
export function parseJsonReply<S extends z.ZodType>(
  text: string,
  schema: S,
): { ok: true; value: z.infer<S> } | { ok: false; error: string } {
  const json = extractJson(text);
  if (!json.ok) {
    return json;
  }
  const parsed = schema.safeParse(json.json);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, error: describeZodError(parsed.error) };
}
