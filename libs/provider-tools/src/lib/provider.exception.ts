import type { RunErrorCodes } from '@switchyard/contracts';

/** Why a provider call failed. */
export enum ProviderErrorCode {
  /** The tenant has no active key for a provider that needs one. */
  NoKey = 'provider_no_key',
  /** The provider refused the key (401/403). */
  Unauthorized = 'provider_unauthorized',
  /** Rate limit or a server error of the provider (429, 5xx): may pass. */
  Unavailable = 'provider_unavailable',
  /** The provider answered with an error for this request (other 4xx) or with an unreadable body. */
  BadResponse = 'provider_bad_response',
  /** The connection was refused by the address guard or failed. */
  Network = 'provider_network',
  /** Bad arguments (e.g. an empty stock code where one is required). */
  InvalidInput = 'provider_invalid_input',
}

/** The provider codes as run error codes: compiles only while every one is in the catalogue. */
export type ProviderRunErrorCode = RunErrorCodes<`${ProviderErrorCode}`>;

/** A failed provider call; `retryable` says whether the same call may succeed later. */
export class ProviderException extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: ProviderErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderException';
    this.retryable = code === ProviderErrorCode.Unavailable;
  }
}
