import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** API keys are stored as SHA-256 hashes only; the prefix lets operators recognise a key. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Index() @Column({ type: 'uuid' }) tenant_id!: string;
  @Column({ type: 'text' }) prefix!: string;
  @Column({ type: 'text', unique: true }) hash!: string;
  @Column({ type: 'text', nullable: true }) label!: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
  @Column({ type: 'timestamptz', nullable: true }) revoked_at!: Date | null;
}
