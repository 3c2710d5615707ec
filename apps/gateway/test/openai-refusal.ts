import OpenAI from 'openai';

/** The error the official client raised for a request the gateway refused. */
export async function refusal(request: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await request;
  } catch (err) {
    if (err instanceof OpenAI.APIError) {
      return err;
    }
    throw err;
  }
  throw new Error('the request was accepted');
}
