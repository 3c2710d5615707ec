import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { RuntimeState } from '@switchyard/contracts';

@Entity('state_snapshots')
export class StateSnapshotEntity {
  @PrimaryColumn('uuid') thread_id!: string;
  @PrimaryColumn('integer') version!: number;
  @Column({ type: 'json' }) state!: RuntimeState;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
}
