import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tenant's running cap without a lock (tools/bench/PROFILE.md, round 4): a row per running
 * slot (`slot` < the tenant's cap), which a run takes when it starts (`FOR UPDATE SKIP LOCKED`,
 * so starts at once take different slots instead of queueing on one lock) and frees when it
 * waits or ends. The runs running now take slots 0, 1, … in their start order.
 */
export class TenantRunSlots1700000000044 implements MigrationInterface {
  name = 'TenantRunSlots1700000000044';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE tenant_run_slots (
         tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
         slot integer NOT NULL CONSTRAINT tenant_run_slots_slot_range CHECK (slot >= 0),
         run_id uuid,
         PRIMARY KEY (tenant_id, slot)
       )`,
    );
    await q.query(
      `INSERT INTO tenant_run_slots (tenant_id, slot, run_id)
       SELECT tenant_id, (row_number() OVER (PARTITION BY tenant_id ORDER BY started_at, id) - 1)::int, id
       FROM runs WHERE status = 'running'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tenant_run_slots');
  }
}
