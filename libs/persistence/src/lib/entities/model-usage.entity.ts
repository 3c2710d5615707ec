import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One metered model call. `task_id` ties it to the action (the state_deltas row with that
 * task_id). bigserial id and numeric cost come back from pg as strings.
 */
@Entity('model_usage')
@Index('model_usage_run_idx', ['run_id'])
@Index('model_usage_tenant_idx', ['tenant_id', 'created_at'])
export class ModelUsageEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id!: string;
  /** The call's own id (unique): its writes after the first are no-ops. NULL on rows from before it. */
  @Index('model_usage_call_idx', { unique: true })
  @Column({ type: 'uuid', nullable: true })
  call_id!: string | null;
  @Column({ type: 'uuid' }) tenant_id!: string;
  @Column({ type: 'uuid', nullable: true }) run_id!: string | null;
  @Column({ type: 'text', nullable: true }) business_id!: string | null;
  @Column({ type: 'uuid', nullable: true }) task_id!: string | null;
  @Column({ type: 'text', nullable: true }) node!: string | null;
  @Column({ type: 'integer', nullable: true }) attempt!: number | null;
  @Column({ type: 'uuid', nullable: true }) model_id!: string | null;
  @Column({ type: 'uuid', nullable: true }) key_id!: string | null;
  @Column({ type: 'integer' }) prompt_tokens!: number;
  @Column({ type: 'integer' }) completion_tokens!: number;
  @Column({ type: 'integer' }) total_tokens!: number;
  @Column({ type: 'numeric', precision: 14, scale: 6, default: 0 }) cost!: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
}
