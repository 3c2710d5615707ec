import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type VendorKind = 'openai' | 'anthropic' | 'ollama';

/** A model vendor (an API a client library speaks): its keys, endpoints and models hang off it. */
@Entity('vendors')
export class VendorEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ type: 'text', unique: true }) name!: string;
  @Column({ type: 'text' }) kind!: VendorKind;
  @Column({ type: 'text', nullable: true }) base_url!: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
}
