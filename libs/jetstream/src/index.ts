export {
  JetStreamConnection,
  encodeJson,
  decodeJson,
  type StreamSpec,
  type ConsumerSpec,
  type PublishOptions,
} from './lib/jetstream.connection';
export {
  JetStreamServer,
  type JetStreamServerOptions,
  type JetStreamConsumerOptions,
  type FairDispatchOptions,
} from './lib/jetstream.server';
export { FairQueue, type FairKey } from './lib/fair-queue';
export { JetStreamContext } from './lib/jetstream.context';
export { NonRetryableMessageError, isRetryable } from './lib/jetstream.exception';
export { subjectMatches } from './lib/subject-match';
export { JetStreamClient, type JetStreamClientOptions, type Identified } from './lib/jetstream.client';
export { JetStreamExceptionFilter } from './lib/jetstream-exception.filter';
