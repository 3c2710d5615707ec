export { RunEventWriter, RunEventReader, eventsKey, DEFAULT_EVENTS_TTL_SECONDS } from './lib/run-events';
export { RunEventHub, type RunEventHubOptions } from './lib/run-event-hub';
