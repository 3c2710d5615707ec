/**
 * Thrown by a handler for a message that can never succeed (invalid, refers to nothing): the
 * transport terminates it instead of redelivering it forever. Any other error is retried.
 */
export class NonRetryableMessageError extends Error {
  readonly retryable = false;
  constructor(
    message: string,
    readonly code = 'invalid_message',
  ) {
    super(message);
    this.name = 'NonRetryableMessageError';
  }
}

export function isRetryable(err: unknown): boolean {
  return !(typeof err === 'object' && err !== null && (err as { retryable?: unknown }).retryable === false);
}
