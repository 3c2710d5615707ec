import { sleep } from './nats-server';
import type { TestStack } from './test-stack';

export interface BurstOptions {
  /** The tenant's API key. */
  key: string;
  /** Runs to create. */
  count: number;
  /** The body of the i-th run; its `request_id` is set here. */
  body: (i: number) => Record<string, unknown>;
  /** Makes the request ids unique to this burst. */
  label: string;
  /** Requests in flight at a time (100). */
  inFlight?: number;
}

/**
 * Creates a burst of runs as a well-behaved client does: `inFlight` requests at a time, a 503 (the
 * gateway's pool could not serve it in time) sent again after 1 s with the same request_id, at most
 * five times — a 200 then means the first attempt had created the run after all. Answers every
 * last response and how many requests were sent again.
 */
type Response = Awaited<ReturnType<TestStack['api']>>;

export async function postBurst(
  stack: TestStack,
  opts: BurstOptions,
): Promise<{ responses: Response[]; retried: number }> {
  const inFlight = opts.inFlight ?? 100;
  let retried = 0;
  const send = async (i: number) => {
    for (let attempt = 1; ; attempt++) {
      const res = await stack.api(
        'POST',
        '/v1/runs',
        { ...opts.body(i), request_id: `${opts.label}-${i}` },
        { Authorization: `Bearer ${opts.key}` },
      );
      if (res.status !== 503 || attempt === 5) {
        return res;
      }
      retried++;
      await sleep(1000);
    }
  };
  const responses: Response[] = [];
  for (let i = 0; i < opts.count; i += inFlight) {
    responses.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(inFlight, opts.count - i) }, (_, k) => send(i + k)),
      )),
    );
  }
  return { responses, retried };
}
