import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ModelCategory } from './model.entity';

/** A URL of a vendor serving some model categories (e.g. a separate embeddings host). */
@Entity('vendor_endpoints')
export class VendorEndpointEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ type: 'uuid' }) vendor_id!: string;
  @Column({ type: 'text' }) url!: string;
  @Column({ type: 'text', array: true }) categories!: ModelCategory[];
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
}
