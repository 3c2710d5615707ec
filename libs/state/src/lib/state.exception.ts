/** Codes for a delta the reducer or its guards refuse; each fails the run (none is retryable). */
export enum DeltaRejectionCode {
  PatchNotAllowed = 'patch_not_allowed',
  PatchFailed = 'patch_failed',
  InvalidState = 'invalid_state',
  TurnMismatch = 'turn_mismatch',
}

/** A delta that cannot be applied to the state. Not retryable: the same delta fails the same way. */
export class DeltaRejectedException extends Error {
  readonly retryable = false;
  constructor(
    readonly code: DeltaRejectionCode,
    message: string,
  ) {
    super(message);
    this.name = 'DeltaRejectedException';
  }
}
