import type { z } from 'zod';
import { API_ERROR_CODES, type CreateRunRequest, type Run } from '@switchyard/client';
import { ApiErrorCode } from '../http/api.exception';
import type { CreateRunSchema } from './run.dto';
import type { runView } from './runs.views';

// The client library's types are checked against the gateway's own: `tsc` fails when a run
// request the client can build is one the gateway's schema refuses (or the other way round), or
// when the gateway's run view no longer has the client's `Run` fields.
type GatewayCreateRun = z.input<typeof CreateRunSchema>;
export const clientToGateway = (b: CreateRunRequest): GatewayCreateRun => b;
export const gatewayToClient = (b: GatewayCreateRun): CreateRunRequest => b;
type RunView = ReturnType<typeof runView>;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
export const sameRunFields: SameKeys<RunView, Run> = true;
// The fields the gateway types exactly (usage, output, error, metadata come from jsonb columns).
type Typed =
  | 'run_id'
  | 'thread_id'
  | 'agent_id'
  | 'turn'
  | 'status'
  | 'priority'
  | 'created_at'
  | 'finished_at'
  | 'steps';
export const runViewToClient = (r: RunView): Pick<Run, Typed> => r;

describe('the client library and the gateway', () => {
  it('know the same error codes', () => {
    expect([...API_ERROR_CODES].sort()).toEqual(Object.values(ApiErrorCode).sort());
  });
});
