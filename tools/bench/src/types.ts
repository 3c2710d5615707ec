/** One run, measured. */
export interface RunSample {
  wallMs: number;
  /** Time spent inside the nodes (LLM calls and tools included), summed over the run's steps. */
  nodeMs: number;
  /** Switchyard: actions of the run (`start` included); LangGraph: node executions. */
  steps: number;
  /** Bytes the run's checkpoints take in Postgres (pg_column_size of the payload columns). */
  bytes: number;
  /** Bytes of the first and the last calculator step: the same work each round. */
  firstToolBytes: number;
  lastToolBytes: number;
  /** Other state the run stored (Switchyard: run_tasks.delta and snapshots); 0 for LangGraph. */
  otherBytes: number;
  /** Requests the model server answered for the run (chat and embeddings). */
  llmRequests?: number;
}

/** Several runs started at once. */
export interface ConcurrentSample {
  totalMs: number;
  runs: number;
  steps: number;
  latenciesMs: number[];
}
