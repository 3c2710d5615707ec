import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('threads')
export class ThreadEntity {
  @PrimaryColumn('uuid') id!: string;
  @Index() @Column({ type: 'uuid' }) tenant_id!: string;
  @Column({ type: 'text' }) agent_id!: string;
  /** Number of deltas applied to the thread's state (RuntimeState.version). */
  @Column({ type: 'integer', default: 0 }) version!: number;
  @Column({ type: 'integer', default: 0 }) turns!: number;
  /** Version of the latest snapshot in `state_snapshots`. */
  @Column({ type: 'integer', default: 0 }) snapshot_version!: number;
  @Column({ type: 'uuid', nullable: true }) active_run_id!: string | null;
  /** Generated with the thread's first answer; later turns keep it. */
  @Column({ type: 'text', nullable: true }) title!: string | null;
  /** The thread's own metadata (LangGraph-compatible threads); `{}` by default. */
  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" }) metadata!: Record<string, unknown>;
  /** A LangGraph stateless run's thread: deleted once its runs have ended (migration 049). */
  @Column({ type: 'boolean', default: false }) delete_when_done!: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
}
