import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('tenants')
export class TenantEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ type: 'text', unique: true }) name!: string;
  /** Tokens the tenant may use (NULL = unlimited); bigint, so pg returns strings. */
  @Column({ type: 'bigint', nullable: true }) token_budget!: string | null;
  /** Incremented by the model runtime with every metered call. */
  @Column({ type: 'bigint', default: 0 }) tokens_used!: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
  /** The tenant's own limits (NULL: the services' defaults), see migration 031. */
  @Column({ type: 'integer', nullable: true }) rate_limit_per_second!: number | null;
  @Column({ type: 'integer', nullable: true }) rate_limit_burst!: number | null;
  @Column({ type: 'integer', nullable: true }) max_active_runs!: number | null;
  @Column({ type: 'integer', nullable: true }) max_running_runs!: number | null;
}
