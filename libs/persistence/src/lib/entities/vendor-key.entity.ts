import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type VendorKeyStatus = 'active' | 'quarantined' | 'revoked';

/**
 * A vendor API key, sealed with SecretBox (libs/config): `secret_sealed` is never returned by an
 * API nor logged; `fingerprint` names the key safely. `tenant_id` NULL = shared by all tenants;
 * `business_id` (only with a tenant) = only that business of the tenant (runs' `metadata.business_id`).
 */
@Entity('vendor_keys')
@Index('vendor_keys_vendor_idx', ['vendor_id', 'status'])
export class VendorKeyEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ type: 'uuid' }) vendor_id!: string;
  @Column({ type: 'text', nullable: true }) label!: string | null;
  @Column({ type: 'uuid', nullable: true }) tenant_id!: string | null;
  @Column({ type: 'text', nullable: true }) business_id!: string | null;
  @Column({ type: 'text' }) secret_sealed!: string;
  @Column({ type: 'text' }) fingerprint!: string;
  @Column({ type: 'text', default: 'active' }) status!: VendorKeyStatus;
  @Column({ type: 'text', nullable: true }) status_reason!: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at!: Date;
}
