export {
  RunEventWriter,
  RunEventReader,
  eventsKey,
  compareSeq,
  DEFAULT_EVENTS_TTL_SECONDS,
} from './lib/run-events';
export { RunEventHub, type RunEventHubOptions } from './lib/run-event-hub';
