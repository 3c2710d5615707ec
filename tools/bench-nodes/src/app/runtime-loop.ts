import { randomBytes } from 'node:crypto';
import type { Action } from '@switchyard/contracts';

/** Bytes of random payload per action: ~1 KB once base64-encoded, incompressible. */
const PAYLOAD_BYTES = 768;

/** The tool rounds a loop run's prompt asks for (tools/bench writes `[runtime-loop] rounds=<k>`). */
export function loopRounds(prompt: string): number {
  const m = /^\[runtime-loop\] rounds=(\d+)$/.exec(prompt);
  if (!m) {
    throw new Error(`not a runtime-loop prompt: ${JSON.stringify(prompt)}`);
  }
  return Number(m[1]);
}

/** The planner's route: another tool round while fewer than `rounds` tool actions ran this turn. */
export function plannerNext(actions: readonly Pick<Action, 'node'>[], rounds: number): string[] {
  return actions.filter((a) => a.node === 'tool').length < rounds ? ['tool'] : [];
}

/** A fresh random payload: what each node returns as its result. */
export function payload(): { data: string } {
  return { data: randomBytes(PAYLOAD_BYTES).toString('base64') };
}
