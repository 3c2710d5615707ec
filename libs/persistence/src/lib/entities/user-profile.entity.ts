import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A tenant's user's profile: what intake loads into a thread's `user_context`. */
@Entity('user_profiles')
export class UserProfileEntity {
  @PrimaryColumn('uuid') tenant_id!: string;
  /** The business service's id for its user (run metadata `user_id`). */
  @PrimaryColumn('text') user_id!: string;
  @Column({ type: 'jsonb' }) profile!: Record<string, unknown>;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at!: Date;
}
