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
