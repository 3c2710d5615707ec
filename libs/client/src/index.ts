export { SwitchyardClient, type EventsOptions, type SwitchyardClientOptions } from './lib/client';
export { API_ERROR_CODES, type ApiErrorCode, SwitchyardApiError, SwitchyardNetworkError } from './lib/errors';
export { type SseFrame, sseFrames } from './lib/sse';
export type * from './lib/types';
export { TokenText } from './lib/token-text';
export { type TokenTextState } from './lib/token-text';
export { RunTranscript, type RunTranscriptSnapshot } from './lib/run-transcript';
