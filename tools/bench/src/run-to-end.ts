import { type TestStack, readSse } from '@switchyard/testing';

/** Posts a run of the default agent with `prompt` and reads its event stream to the end; its id. */
export async function runToEnd(stack: TestStack, prompt: string, timeoutMs = 300_000): Promise<string> {
  const created = await stack.api('POST', '/v1/runs', { input: { prompt } });
  if (created.status !== 202) {
    throw new Error(`POST /v1/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  const runId = created.body.run_id as string;
  await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events`, {
    headers: { Authorization: `Bearer ${stack.key}` },
    timeoutMs,
  });
  return runId;
}
