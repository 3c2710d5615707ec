import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { StateDelta } from '@switchyard/contracts';

export type RunTaskStatus = 'pending' | 'arrived' | 'applied';

/**
 * Task bookkeeping and the transactional outbox: a task row is written in the same transaction
 * as the delta that asked for it, and `published_at` is set once JetStream acknowledged it.
 */
@Entity('run_tasks')
@Index('run_tasks_run_step_idx', ['run_id', 'step', 'seq'])
@Index('run_tasks_unpublished_idx', ['created_at'], { where: 'published_at IS NULL' })
export class RunTaskEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column({ type: 'uuid' }) run_id!: string;
  @Column({ type: 'uuid' }) thread_id!: string;
  @Column({ type: 'integer' }) turn!: number;
  @Column({ type: 'integer' }) step!: number;
  /** Dispatch order within the step: deltas of a fan-out are applied in this order. */
  @Column({ type: 'integer' }) seq!: number;
  @Column({ type: 'integer' }) call_index!: number;
  @Column({ type: 'text' }) node!: string;
  @Column({ type: 'text' }) subject!: string;
  @Column({ type: 'integer' }) version!: number;
  @Column({ type: 'integer', default: 1 }) attempt!: number;
  @Column({ type: 'text' }) status!: RunTaskStatus;
  @Column({ type: 'json', nullable: true }) delta!: StateDelta | null;
  @Column({ type: 'timestamptz' }) deadline!: Date;
  @Column({ type: 'timestamptz', nullable: true }) published_at!: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
  @Column({ type: 'timestamptz', nullable: true }) finished_at!: Date | null;
  /** The W3C traceparent the task was dispatched under (null when tracing is off). */
  @Column({ type: 'text', nullable: true }) trace_parent!: string | null;
}
