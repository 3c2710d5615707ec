import { MemoryStateSource } from './memory-state-source';
import { stateSourceConformance } from './state-source.conformance';

stateSourceConformance('MemoryStateSource', async () => {
  const source = new MemoryStateSource();
  return { source, write: async (threadId, log) => source.append(threadId, log) };
});
