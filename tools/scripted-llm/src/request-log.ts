import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { NativeJson } from './script.engine';

// What the scripted model server records of each chat/embeddings exchange (GET /_requests).

export interface RequestRecord {
  /** `req_1`, `req_2`, … in arrival order. */
  id: string;
  /** Arrival time (ISO). */
  at: string;
  path: string;
  /** Name of the rule that answered, or null (no rule matched, or not a chat request). */
  rule: string | null;
  stream: boolean;
  /** The client closed the connection before the reply finished. */
  aborted: boolean;
  aborted_after_ms?: number;
  /** Chat: number of messages; embeddings: number of inputs. */
  messages_count: number;
  /** HTTP status of the reply, set once the exchange is over. */
  status?: number;
  /**
   * First 12 hex digits of the SHA-256 of the API key the request carried (what SecretBox.fingerprint
   * gives), or null without one: tests see which key was used, the key itself is never recorded.
   */
  api_key_fingerprint: string | null;
  /** How the request asked for JSON natively (`json_schema`, `json_object`, `tool`, `format`, `output_format`), or null. */
  native_json: NativeJson['via'] | null;
  /** The JSON Schema the request sent natively (null: none), and OpenAI's `strict` flag for it. */
  native_schema: unknown;
  native_strict: boolean | null;
  /** Whether strict mode applied to the request (the script's `strict`, or `x-scripted-strict`). */
  strict: boolean;
  /** The request's system prompt (first 4000 characters), so tests can check what was asked. */
  system: string;
}

// Oldest records are dropped past this so a long-running demo server does not grow without bound.
const MAX_RECORDS = 10_000;

export function keyFingerprint(key: string | undefined): string | null {
  return key ? createHash('sha256').update(key).digest('hex').slice(0, 12) : null;
}

/** The records, and the exchanges in flight (aborted when the server closes). */
export class RequestLog {
  /** Live list (the same array GET /_requests returns; cleared in place). */
  readonly requests: RequestRecord[] = [];
  private readonly inFlight = new Set<AbortController>();
  private seq = 0;
  private closing = false;

  constructor(private readonly onRequest?: (record: RequestRecord) => void) {}

  /** A new record of a request (`rule` and the native JSON fields are filled in by the script run). */
  record(path: string, stream: boolean, count: number, apiKey: string | undefined): RequestRecord {
    return {
      id: `req_${++this.seq}`,
      at: new Date().toISOString(),
      path,
      rule: null,
      stream,
      aborted: false,
      messages_count: count,
      api_key_fingerprint: keyFingerprint(apiKey),
      native_json: null,
      native_schema: null,
      native_strict: null,
      strict: false,
      system: '',
    };
  }

  /** Records the exchange and returns a signal that fires if the client goes away (or the server closes). */
  track(res: ServerResponse, record: RequestRecord): AbortSignal {
    const started = Date.now();
    const controller = new AbortController();
    this.inFlight.add(controller);
    this.requests.push(record);
    if (this.requests.length > MAX_RECORDS) {
      this.requests.splice(0, this.requests.length - MAX_RECORDS);
    }
    res.on('close', () => {
      this.inFlight.delete(controller);
      if (!res.writableFinished && !this.closing) {
        record.aborted = true;
        record.aborted_after_ms = Date.now() - started;
      }
      if (res.headersSent) {
        record.status = res.statusCode;
      }
      controller.abort();
      this.onRequest?.(record);
    });
    return controller.signal;
  }

  clear(): void {
    this.requests.length = 0;
  }

  /** The server is closing: exchanges in flight are aborted, and not recorded as the client's aborts. */
  close(): void {
    this.closing = true;
    for (const controller of this.inFlight) {
      controller.abort();
    }
  }
}
