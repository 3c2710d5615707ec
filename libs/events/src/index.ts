export {
  RunEventWriter,
  RunEventReader,
  eventsKey,
  compareSeq,
  DEFAULT_EVENTS_TTL_SECONDS,
} from './lib/run-events';
