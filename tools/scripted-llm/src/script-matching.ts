import type { IncomingMessage } from 'node:http';
import { HttpError } from './http';
import type { RequestRecord } from './request-log';
import {
  type Conversation,
  type RenderedReply,
  lastUserText,
  pickRule,
  renderReply,
  shapeForRequest,
} from './script.engine';
import { parseScript, type Script } from './script.schema';
import { sleep } from './streaming';

// The script a server answers by, and how one conversation is answered by it: the rule that
// matches, its delay, its error status, or its rendered reply.

const DEFAULT_CHUNK_DELAY_MS = 5;

/** The script's `strict`, unless the request's `x-scripted-strict` header says otherwise. */
function strictFor(req: IncomingMessage, script: Script): boolean {
  const header = req.headers['x-scripted-strict'];
  if (header === '1' || header === 'true') {
    return true;
  }
  if (header === '0' || header === 'false') {
    return false;
  }
  return script.strict === true;
}

function systemOf(conv: Conversation): string {
  return conv.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => m.text)
    .join('\n')
    .slice(0, 4000);
}

export class ScriptRunner {
  private current: Script;
  // Uses per rule index, for `times`; reset whenever the script changes.
  private used: number[] = [];

  constructor(script: Script) {
    this.current = parseScript(script);
  }

  get script(): Script {
    return this.current;
  }

  /** Replaces the script (validated) and resets every rule's `times` counter. */
  setScript(next: Script): void {
    this.current = parseScript(next);
    this.used = [];
  }

  /**
   * Answers a conversation by the script: picks the rule, waits its delay, throws its error status
   * (with Retry-After), else renders the reply. Undefined when the client went away meanwhile.
   */
  async answer(
    conv: Conversation,
    record: RequestRecord,
    signal: AbortSignal,
    req: IncomingMessage,
  ): Promise<{ rendered: RenderedReply; chunkDelayMs: number } | undefined> {
    const script = this.current;
    const strict = strictFor(req, script);
    record.native_json = conv.native?.via ?? null;
    record.native_schema = conv.native?.schema ?? null;
    record.native_strict = conv.native?.strict ?? null;
    record.strict = strict;
    record.system = systemOf(conv);
    const rule = pickRule(script, this.used, conv);
    if (!rule) {
      const user = lastUserText(conv);
      const shown =
        user === undefined ? 'none' : JSON.stringify(user.length > 300 ? `${user.slice(0, 300)}…` : user);
      throw new HttpError(
        500,
        `scripted-llm: no rule matched (last user message: ${shown})`,
        'no_rule_matched',
      );
    }
    record.rule = rule.name;
    const reply = rule.reply;
    await sleep(reply.delay_ms ?? 0, signal);
    if (signal.aborted) {
      return;
    }

    if (reply.status !== undefined) {
      const message =
        reply.error_message ?? `scripted-llm: rule "${rule.name}" replies with status ${reply.status}`;
      const headers: Record<string, string> = {};
      if (reply.retry_after !== undefined) {
        headers['retry-after'] = String(reply.retry_after);
      }
      throw new HttpError(reply.status, message, `scripted_${reply.status}`, {}, headers);
    }
    return {
      rendered: shapeForRequest(renderReply(reply, conv), conv, strict),
      chunkDelayMs: reply.chunk_delay_ms ?? DEFAULT_CHUNK_DELAY_MS,
    };
  }
}
