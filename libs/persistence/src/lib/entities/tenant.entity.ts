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
}
