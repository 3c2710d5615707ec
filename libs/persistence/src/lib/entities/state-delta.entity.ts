import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { CommittedDelta } from '@switchyard/contracts';

/** The append-only checkpoint log: one row per applied delta, O(size of the delta). */
@Entity('state_deltas')
@Index('state_deltas_run_idx', ['run_id', 'version'])
export class StateDeltaEntity {
  @PrimaryColumn('uuid') thread_id!: string;
  @PrimaryColumn('integer') version!: number;
  /** Unique: a redelivered delta can never be applied twice. */
  @Column({ type: 'uuid', unique: true }) task_id!: string;
  @Column({ type: 'uuid' }) run_id!: string;
  @Column({ type: 'text' }) node!: string;
  @Column({ type: 'json' }) delta!: CommittedDelta;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
}
