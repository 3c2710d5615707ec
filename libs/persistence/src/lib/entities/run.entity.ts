import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Breakpoints, ClientRequestOptions, RunFork, RunStatus, Usage } from '@switchyard/contracts';

export interface RunInput extends ClientRequestOptions {
  prompt: string;
  files?: unknown[];
  /** Earlier chat messages brought by an OpenAI-style request. */
  history?: { role: 'user' | 'assistant' | 'system'; content: string }[];
  /** A graph agent's inputs (Begin's form, a PuppyEngine workflow's blocks). */
  inputs?: Record<string, unknown>;
  /**
   * The same inputs as JSON text: jsonb sorts object keys, and a workflow splices structured
   * inputs into prompts as text, so their key order is part of what the model is sent.
   */
  inputs_json?: string;
  /** A run that branches its thread from an earlier version (`POST /v1/threads/:id/fork`). */
  fork?: RunFork;
  /** Where the run stops (node names as the run's `next` names them). */
  breakpoints?: Breakpoints;
}

/** A client function call a waiting run waits for (its `client_tool` task). */
export interface WaitingClientCall {
  task_id: string;
  /** The tool call's id, as the client sees it (`tool_calls[].id`, `tool_call_id`). */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What a waiting run asks the user. */
export interface RunWaiting {
  task_id: string;
  node: string;
  question: string;
  input_schema: Record<string, unknown>;
  since: string;
  /** The node the answer goes to (a graph agent's UserFillUp); absent = `ask_user`'s usual `next`. */
  resume_at?: string;
  /** Set when the run waits for the client's function results (every `client_tool` task of the step). */
  client_calls?: WaitingClientCall[];
}

@Entity('runs')
@Index('runs_tenant_request_uq', ['tenant_id', 'request_id'], {
  unique: true,
  where: 'request_id IS NOT NULL',
})
export class RunEntity {
  @PrimaryColumn('uuid') id!: string;
  @Index() @Column({ type: 'uuid' }) tenant_id!: string;
  @Index() @Column({ type: 'uuid' }) thread_id!: string;
  @Column({ type: 'text' }) agent_id!: string;
  @Column({ type: 'integer', nullable: true }) turn!: number | null;
  @Column({ type: 'text' }) status!: RunStatus;
  @Column({ type: 'text', nullable: true }) request_id!: string | null;
  @Column({ type: 'jsonb' }) input!: RunInput;
  @Column({ type: 'jsonb', nullable: true }) output!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) error!: { code: string; message: string } | null;
  @Column({ type: 'jsonb', nullable: true }) usage!: Usage | null;
  @Column({ type: 'integer', default: 0 }) steps!: number;
  @Column({ type: 'integer', default: 50 }) max_steps!: number;
  @Column({ type: 'boolean', default: false }) cancel_requested!: boolean;
  /** Set while the run waits for human input. */
  @Column({ type: 'jsonb', nullable: true }) waiting!: RunWaiting | null;
  @Column({ type: 'jsonb', default: {} }) metadata!: Record<string, unknown>;
  /** The LangGraph stream modes its request asked for (migration 048). */
  @Column({ type: 'text', array: true, nullable: true }) stream_modes!: string[] | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
  @Column({ type: 'timestamptz', nullable: true }) started_at!: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) finished_at!: Date | null;
}
