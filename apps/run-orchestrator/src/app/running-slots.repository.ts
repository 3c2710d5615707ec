import type { RunRow } from './run-row';
import { type StepSql, deferWrite } from '@switchyard/persistence';

// The statements of the tenants' running slots (tenant_run_slots), raw and as they were: each runs
// on the `m` its caller passes (a step's prepared connection or a TypeORM transaction), ADR 0026.

/**
 * Takes the tenant's lowest free running slot (below `cap` when given) for the run, skipping
 * slots other transactions hold: false when none is free. (A SELECT around the UPDATE: TypeORM
 * answers an UPDATE with [rows, count], a SELECT with rows.)
 */
async function takeFreeSlot(
  m: StepSql,
  tenantId: string,
  runId: string,
  cap: number | null,
): Promise<boolean> {
  const taken = await m.query<{ slot: number }[]>(
    `WITH taken AS (
       UPDATE tenant_run_slots s SET run_id = $2
       FROM (SELECT slot FROM tenant_run_slots
             WHERE tenant_id = $1 AND run_id IS NULL AND ($3::int IS NULL OR slot < $3::int)
             ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED) free
       WHERE s.tenant_id = $1 AND s.slot = free.slot RETURNING s.slot)
     SELECT slot FROM taken`,
    [tenantId, runId, cap],
  );
  return taken.length > 0;
}

/**
 * Takes a free running slot of the tenant (`tenant_run_slots`, slot < its cap) for the run this
 * transaction sets running; false when every slot is taken. `SKIP LOCKED`: starts at once take
 * different slots instead of queueing on one lock (an advisory lock held to COMMIT serialised
 * them: 84–97 ms mean wait under a burst, PROFILE.md). A slot another start holds but has not
 * committed is skipped — should that start roll back, a run held meanwhile starts when one of the
 * tenant's runs ends, or by the reaper's sweep. The tenant's first start creates its slot rows
 * (and a raised cap the new ones). Waiting runs hold none (RunStepper frees it; they hold no task).
 */
export async function takeRunningSlot(
  m: StepSql,
  cap: { tenantId: string; runId: string; slots: number },
): Promise<boolean> {
  if (await takeFreeSlot(m, cap.tenantId, cap.runId, cap.slots)) {
    return true;
  }
  const [{ missing }] = await m.query<{ missing: number }[]>(
    `SELECT $2::int - count(*)::int AS missing FROM tenant_run_slots WHERE tenant_id = $1 AND slot < $2`,
    [cap.tenantId, cap.slots],
  );
  if (missing <= 0) {
    return false;
  }
  await m.query(
    `INSERT INTO tenant_run_slots (tenant_id, slot) SELECT $1, g FROM generate_series(0, $2::int - 1) g
     ON CONFLICT DO NOTHING`,
    [cap.tenantId, cap.slots],
  );
  return takeFreeSlot(m, cap.tenantId, cap.runId, cap.slots);
}

/**
 * A run resumed from `waiting`: the person answered, so it runs whether or not a slot is free;
 * it takes one when there is, so the tenant's starts count it.
 */
export async function retakeRunningSlot(m: StepSql, run: Pick<RunRow, 'id' | 'tenant_id'>): Promise<void> {
  await takeFreeSlot(m, run.tenant_id, run.id, null);
}

/** Frees the running slot the run holds, if any: it waits or ended. */
export async function freeRunningSlot(m: StepSql, run: Pick<RunRow, 'id' | 'tenant_id'>): Promise<void> {
  await deferWrite(m, 'UPDATE tenant_run_slots SET run_id = NULL WHERE tenant_id = $1 AND run_id = $2', [
    run.tenant_id,
    run.id,
  ]);
}

/**
 * Frees the running slots held by runs that are not running (a path that missed its slot);
 * answers the tenants whose slots it freed. A start or resume that has taken a slot but not
 * committed is not seen (the row still reads free in this snapshot).
 */
export async function freeLeakedSlots(m: StepSql): Promise<string[]> {
  const freed = await m.query<{ tenant_id: string }[]>(
    `WITH freed AS (
         UPDATE tenant_run_slots s SET run_id = NULL
         WHERE s.run_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id AND r.status = 'running')
         RETURNING s.tenant_id)
       SELECT DISTINCT tenant_id FROM freed`,
  );
  return freed.map((r) => r.tenant_id);
}
