import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

export const MODEL_CATEGORIES = ['text', 'reasoning', 'embedding', 'multimodal', 'image', 'video'] as const;
export type ModelCategory = (typeof MODEL_CATEGORIES)[number];

/** Per role (or `*`): the JSON Schema a reply must match and how often to re-ask when it does not. */
export type ModelParser = Record<string, { schema: Record<string, unknown>; max_retries: number }>;

/** A model of a vendor. Prices are numeric(14,6): pg returns them as strings, exact. */
@Entity('models')
@Unique(['vendor_id', 'name', 'version'])
export class ModelEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ type: 'uuid' }) vendor_id!: string;
  @Column({ type: 'text' }) name!: string;
  @Column({ type: 'text' }) category!: ModelCategory;
  @Column({ type: 'text', default: '' }) version!: string;
  @Column({ type: 'integer', nullable: true }) context_window!: number | null;
  @Column({ type: 'numeric', precision: 14, scale: 6, default: 0 }) price_per_1k_input!: string;
  @Column({ type: 'numeric', precision: 14, scale: 6, default: 0 }) price_per_1k_output!: string;
  @Column({ type: 'jsonb', nullable: true }) parser!: ModelParser | null;
  /** How replies are made structured; null = the vendor kind's default (see the 027 migration). */
  @Column({ type: 'text', nullable: true }) structured_output!: 'json_schema' | 'tool_call' | 'prompt' | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at!: Date;
}
