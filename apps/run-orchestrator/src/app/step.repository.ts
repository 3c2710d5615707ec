import type { Action, RuntimeState } from '@switchyard/contracts';
import { RUN_COLUMNS, type RunRow, TASK_COLUMNS, type TaskRow } from './run-row';
import { type PreparedLock, type StepSql, deferWrite } from '@switchyard/persistence';

// The statements of a step, a start and the task paths around them (reaper, outbox). They stay
// raw, as written before they moved here, and each runs on the `m` its caller passes — a step's
// prepared connection (withLockedRead), a TypeORM transaction's manager, or the DataSource — so a
// step gets no statement more, and none slower (ADR 0026: the hot statements stay prepared). The
// functions only give them a typed answer.

/** A run's thread, or undefined for an unknown run. */
export async function threadOfRun(m: StepSql, runId: string): Promise<string | undefined> {
  const [run] = await m.query<{ thread_id: string }[]>('SELECT thread_id FROM runs WHERE id = $1', [runId]);
  return run?.thread_id;
}

/**
 * The thread of the tenant's next queued run that may start on a free thread: interactive runs
 * first, then batch runs, oldest first within each.
 */
export async function nextStartableThreadOfTenant(m: StepSql, tenantId: string): Promise<string | undefined> {
  const [next] = await m.query<{ thread_id: string }[]>(
    `SELECT r.thread_id FROM runs r JOIN threads t ON t.id = r.thread_id
         LEFT JOIN runs a ON a.id = t.active_run_id
         WHERE r.tenant_id = $1 AND r.status = 'queued' AND (r.not_before IS NULL OR r.not_before <= now() OR r.cancel_requested)
           AND (t.active_run_id IS NULL OR a.status NOT IN ('queued', 'running', 'waiting'))
         ORDER BY r.priority = 'batch', r.created_at, r.id LIMIT 1`,
    [tenantId],
  );
  return next?.thread_id;
}

/** The thread's row locked, with its active run's status. */
export interface LockedThreadRow {
  version: number;
  /** The thread's newest state snapshot (SnapshotWriter counts from it). */
  snapshot_version: number;
  active_run_id: string | null;
  active_status: string | null;
}

function lockThreadSql(threadId: string): string {
  return `SELECT t.version, t.snapshot_version, t.active_run_id, r.status AS active_status
         FROM threads t LEFT JOIN runs r ON r.id = t.active_run_id WHERE t.id = ${threadId} FOR UPDATE OF t`;
}

/** A start's locking read of its thread (LockedThreadRow), prepared once per pooled connection. */
export const LOCK_THREAD: PreparedLock = { name: 'sy_lock_thread', sql: lockThreadSql('$1::uuid') };

/** The locking read of `LOCK_THREAD` for a thread (an SQL literal). */
export function executeLockThread(threadId: string): string {
  return `EXECUTE ${LOCK_THREAD.name}(${threadId})`;
}

/** The thread's oldest queued run that may start, with its agent's kind and its tenant's running count and cap. */
export type StartableRunRow = RunRow & {
  agent_kind: string | null;
  tenant_running: number;
  tenant_cap: number | null;
};

/**
 * The locking read of the thread's next startable run (`threadId`: an SQL literal). Sent as the
 * start's second read, in the thread lock's round trip (`withLockedRead`'s `readAfter`): a
 * statement of its own, so it sees a run queued while the thread lock waited.
 */
export function lockNextQueuedRunSql(threadId: string): string {
  return `SELECT ${RUN_COLUMNS}, trace_parent, agent_config->>'kind' AS agent_kind,
         (SELECT count(*)::int FROM runs o WHERE o.tenant_id = runs.tenant_id AND o.status = 'running') AS tenant_running,
         (SELECT max_running_runs FROM tenants WHERE id = runs.tenant_id) AS tenant_cap
       FROM runs WHERE thread_id = ${threadId} AND status = 'queued'
         -- A delayed run waits for its time (DelayedRunsJob starts it then); cancelled, it ends now.
         AND (not_before IS NULL OR not_before <= now() OR cancel_requested)
       ORDER BY created_at, id LIMIT 1 FOR UPDATE`;
}

/** A delta appended to the thread's log (`json`: the CommittedDelta as JSON text). */
export async function insertDelta(
  m: StepSql,
  d: { threadId: string; version: number; taskId: string; runId: string; node: string; json: string },
): Promise<void> {
  await deferWrite(
    m,
    'INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ($1, $2, $3, $4, $5, $6)',
    [d.threadId, d.version, d.taskId, d.runId, d.node, d.json],
  );
}

/** A turn opened: the thread's version, one turn more, the run active. */
export async function openThreadTurn(
  m: StepSql,
  threadId: string,
  version: number,
  runId: string,
): Promise<void> {
  await deferWrite(
    m,
    'UPDATE threads SET version = $2, turns = turns + 1, active_run_id = $3 WHERE id = $1',
    [threadId, version, runId],
  );
}

/** A fork's branch: the thread's version and turns as the branch has them, the run active. */
export async function branchThread(
  m: StepSql,
  threadId: string,
  version: number,
  turns: number,
  runId: string,
): Promise<void> {
  await deferWrite(m, 'UPDATE threads SET version = $2, turns = $3, active_run_id = $4 WHERE id = $1', [
    threadId,
    version,
    turns,
    runId,
  ]);
}

/**
 * The run running from now, in `turn`. clock_timestamp(), not now(): a start that waited for the
 * thread's lock while the previous run ended must not read as having started before that run finished.
 */
export async function markRunStarted(m: StepSql, runId: string, turn: number | null): Promise<void> {
  await deferWrite(
    m,
    `UPDATE runs SET status = 'running', started_at = clock_timestamp(), turn = $2 WHERE id = $1`,
    [runId, turn],
  );
}

/** The actions the run committed from the first delta of these tasks on (at most 1000), in order. */
export async function actionsSinceTasks(m: StepSql, taskIds: string[], runId: string): Promise<Action[]> {
  const applied = await m.query<{ action: Action }[]>(
    `SELECT delta->'action' AS action FROM state_deltas
               WHERE run_id = $2 AND version >= (SELECT min(version) FROM state_deltas WHERE task_id = ANY($1::uuid[]))
               ORDER BY version LIMIT 1000`,
    [taskIds, runId],
  );
  return applied.map((r) => r.action);
}

/** A fan-out's delta kept until the step's last one arrives (`deltaJson`: the delta as JSON text). */
export async function markTaskArrived(m: StepSql, taskId: string, deltaJson: string): Promise<void> {
  await deferWrite(
    m,
    `UPDATE run_tasks SET status = 'arrived', delta = $2, finished_at = now(),
               published_at = COALESCE(published_at, now()) WHERE id = $1`,
    [taskId, deltaJson],
  );
}

/** What an inline (canvas) run reads of its run row: the pinned agent and the run's inputs. */
export interface InlineRunRow {
  agent_config: unknown;
  inputs: unknown;
  inputs_json: string | null;
}

export async function inlineRunRow(m: StepSql, runId: string): Promise<InlineRunRow | undefined> {
  const [row] = await m.query<InlineRunRow[]>(
    `SELECT agent_config, input->'inputs' AS inputs, input->>'inputs_json' AS inputs_json FROM runs WHERE id = $1`,
    [runId],
  );
  return row;
}

/**
 * Marks these attempts of the tasks published, skipping rows a step holds locked (the step marks
 * them itself): see TaskOutbox.
 */
export async function markAttemptsPublished(m: StepSql, ids: string[], attempts: number[]): Promise<void> {
  await m.query(
    `UPDATE run_tasks t SET published_at = now()
         WHERE t.id IN (
           SELECT r.id FROM run_tasks r JOIN unnest($1::uuid[], $2::int[]) AS p(id, attempt)
             ON r.id = p.id AND r.attempt = p.attempt
           WHERE r.published_at IS NULL
           FOR UPDATE OF r SKIP LOCKED)`,
    [ids, attempts],
  );
}

/** Up to 200 tasks left unpublished for longer than `staleMs`, oldest first. */
export function staleUnpublishedTasks(m: StepSql, staleMs: number): Promise<TaskRow[]> {
  return m.query<TaskRow[]>(
    `SELECT ${TASK_COLUMNS} FROM run_tasks t JOIN runs r ON r.id = t.run_id
       WHERE t.published_at IS NULL AND t.created_at < now() - $1 * interval '1 millisecond'
       ORDER BY t.created_at LIMIT 200`,
    [staleMs],
  );
}

/** Up to 50 pending tasks of running runs whose deadline passed, the most overdue first. */
export async function overdueTaskIds(m: StepSql): Promise<string[]> {
  const overdue = await m.query<{ id: string }[]>(
    `SELECT t.id FROM run_tasks t JOIN runs r ON r.id = t.run_id
       WHERE t.status = 'pending' AND t.deadline < now() AND r.status = 'running'
       ORDER BY t.deadline LIMIT 50`,
  );
  return overdue.map((r) => r.id);
}

/** The task as the outbox publishes it. */
export async function taskRow(m: StepSql, taskId: string): Promise<TaskRow> {
  const [task] = await m.query<TaskRow[]>(
    `SELECT ${TASK_COLUMNS} FROM run_tasks t JOIN runs r ON r.id = t.run_id WHERE t.id = $1`,
    [taskId],
  );
  return task;
}

/** The run's row, locked for the rest of the transaction. */
export async function lockRunRow(m: StepSql, runId: string): Promise<RunRow> {
  const [run] = await m.query<RunRow[]>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE`, [runId]);
  return run;
}

/** The task's attempt, locked, if it is still pending past its deadline. */
export async function lockOverdueTask(m: StepSql, taskId: string): Promise<{ attempt: number } | undefined> {
  const [fresh] = await m.query<{ attempt: number }[]>(
    `SELECT attempt FROM run_tasks WHERE id = $1 AND status = 'pending' AND deadline < now() FOR UPDATE`,
    [taskId],
  );
  return fresh;
}

/** The task's next attempt, to be published again by the outbox. */
export async function redispatchTask(
  m: StepSql,
  taskId: string,
  attempt: number,
  deadline: Date,
): Promise<void> {
  await m.query('UPDATE run_tasks SET attempt = $2, deadline = $3, published_at = NULL WHERE id = $1', [
    taskId,
    attempt,
    deadline,
  ]);
}

/** Up to 50 threads with a run queued for longer than `staleMs` and no run under way. */
export async function strandedQueuedThreads(m: StepSql, staleMs: number): Promise<string[]> {
  const threads = await m.query<{ thread_id: string }[]>(
    `SELECT DISTINCT r.thread_id FROM runs r JOIN threads t ON t.id = r.thread_id
       LEFT JOIN runs a ON a.id = t.active_run_id
       WHERE r.status = 'queued' AND coalesce(r.not_before, r.created_at) < now() - $1 * interval '1 millisecond'
         AND (t.active_run_id IS NULL OR a.status NOT IN ('queued', 'running', 'waiting'))
       LIMIT 50`,
    [staleMs],
  );
  return threads.map((r) => r.thread_id);
}

/**
 * One statement (run with BEGIN in one round trip): the run row locked, its thread's version, and
 * the task's whole step locked, in dispatch order (a fan-out's deltas join here). The run is locked
 * first: the tasks' scan needs its id. Every task of the step was committed before its delta
 * could exist, so the statement's snapshot holds them all, and FOR UPDATE reads the newest
 * version of each (status, arrived delta, attempt) once a concurrent writer's lock is released.
 */
export function lockStepSql(runId: string, taskId: string): string {
  const cols = RUN_COLUMNS.split(', ')
    .map((c) => `r.${c}`)
    .join(', ');
  return `WITH run AS (
      SELECT ${cols}, th.version AS thread_version, th.snapshot_version
      FROM runs r JOIN threads th ON th.id = r.thread_id WHERE r.id = ${runId} FOR UPDATE OF r
    ), step_tasks AS (
      SELECT id, step, node, status, attempt, delta, seq FROM run_tasks
      WHERE run_id = (SELECT id FROM run)
        AND step = (SELECT step FROM run_tasks WHERE id = ${taskId} AND run_id = ${runId})
      ORDER BY seq FOR UPDATE
    )
    SELECT run.*, (SELECT COALESCE(json_agg(s ORDER BY s.seq), '[]'::json) FROM step_tasks s) AS step_tasks
    FROM run`;
}

/**
 * `lockStepSql` as a statement each pooled connection prepares once (withLockedReads): planning
 * it took ~0.3 ms of every step's first round trip (pgbench, empty tables).
 */
export const LOCK_STEP: PreparedLock = { name: 'sy_lock_step', sql: lockStepSql('$1::uuid', '$2::uuid') };

/** The step's locking read of `LOCK_STEP` for a run and its task (SQL literals). */
export function executeLockStep(runId: string, taskId: string): string {
  return `EXECUTE ${LOCK_STEP.name}(${runId}, ${taskId})`;
}

/**
 * The writes of a step whose every task answered, sent with the next tasks in one statement
 * (RunStepper): the task rows keep only their bookkeeping, the deltas (`rows`: thread, version,
 * task, run, node and delta JSON of each) go to the log, the thread's version moves.
 */
export function appliedStepWrites(
  runId: string,
  step: number,
  version: number,
  rows: unknown[][],
): StepWrites {
  const values = rows.map(
    (_, i) => `($${i * 6 + 4}, $${i * 6 + 5}, $${i * 6 + 6}, $${i * 6 + 7}, $${i * 6 + 8}, $${i * 6 + 9})`,
  );
  return {
    params: [runId, step, version, ...rows.flat()],
    parts: [
      {
        name: 'applied',
        // A task that answered was published: its mark costs nothing here (the row is
        // written anyway), and the outbox's batched mark then skips it.
        sql: `UPDATE run_tasks SET status = 'applied', delta = NULL, finished_at = COALESCE(finished_at, now()),
                    published_at = COALESCE(published_at, now())
                  WHERE run_id = $1 AND step = $2`,
      },
      {
        name: 'moved',
        sql: 'UPDATE threads SET version = $3 WHERE id = (SELECT thread_id FROM runs WHERE id = $1)',
      },
      {
        name: 'logged',
        sql: `INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ${values.join(', ')}`,
      },
    ],
  };
}

/**
 * Data-modifying statements of a step that may share one statement with others (as CTEs): each
 * `sql` numbers its parameters from $1 into `params`.
 */
export interface StepWrites {
  parts: { name: string; sql: string }[];
  params: unknown[];
}

/** The writes as one statement: the last part is the main statement, the others its CTEs. */
function statementOf(writes: StepWrites): [string, unknown[]] {
  const last = writes.parts[writes.parts.length - 1];
  const ctes = writes.parts.slice(0, -1).map((p) => `${p.name} AS (${p.sql})`);
  return [`${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}${last.sql}`, writes.params];
}

/**
 * The writes of a chain of inline steps, sent with the statement that ends it: their tasks
 * recorded as applied (a fork reads a step's tasks), their deltas in the log, the thread's version
 * moved to the chain's last.
 */
export function inlineWrites(
  { tasks, logs }: { tasks: TaskRow[]; logs: unknown[][] },
  state: RuntimeState,
): StepWrites {
  const params: unknown[] = [state.thread_id, state.version];
  const inserted = taskInsert(tasks, params, 'applied');
  const logged = `INSERT INTO state_deltas (thread_id, version, task_id, run_id, node, delta) VALUES ${logs
    .map((r) => valuesRow(r, params))
    .join(', ')}`;
  return {
    params,
    parts: [
      { name: 'inline_tasks', sql: inserted },
      { name: 'inline_moved', sql: 'UPDATE threads SET version = $2 WHERE id = $1' },
      { name: 'inline_logged', sql: logged },
    ],
  };
}

/** `($n, …)` for `values`, appended to `params`; `literals` (SQL) end the row. */
function valuesRow(values: readonly unknown[], params: unknown[], literals = ''): string {
  const at = params.length;
  params.push(...values);
  return `(${values.map((_, j) => `$${at + j + 1}`).join(', ')}${literals})`;
}

const TASK_INSERT_COLUMNS = [
  'id',
  'run_id',
  'thread_id',
  'turn',
  'step',
  'seq',
  'call_index',
  'node',
  'subject',
  'version',
  'attempt',
  'deadline',
  'trace_parent',
] as const;

/**
 * An INSERT of `tasks` into run_tasks, their values appended to `params`: `pending` (to publish),
 * or `applied` (run inline: published and finished as they are written).
 */
function taskInsert(tasks: TaskRow[], params: unknown[], status: 'pending' | 'applied'): string {
  const [cols, literals] =
    status === 'pending'
      ? [', status', ", 'pending'"]
      : [', status, published_at, finished_at', ", 'applied', now(), now()"];
  const rows = tasks.map((t) =>
    valuesRow(
      TASK_INSERT_COLUMNS.map((c) => t[c] ?? null),
      params,
      literals,
    ),
  );
  return `INSERT INTO run_tasks (${TASK_INSERT_COLUMNS.join(', ')}${cols}) VALUES ${rows.join(', ')}`;
}

/**
 * Inserts the next tasks and, in the same statement, records the run's step count (and its
 * return from `waiting`) and carries out the step's own `writes`: one round trip.
 */
export async function insertTasks(
  m: StepSql,
  tasks: TaskRow[],
  run?: { runId: string; steps: number; resumed: boolean },
  writes?: StepWrites,
): Promise<void> {
  const values: unknown[] = [...(writes?.params ?? []), ...(run ? [run.runId, run.steps] : [])];
  const offset = values.length;
  const insert = taskInsert(tasks, values, 'pending');
  const parts = [...(writes?.parts ?? [])];
  if (run) {
    const status = run.resumed ? `, status = 'running', waiting = NULL` : '';
    const id = `$${offset - 1}`;
    const steps = `$${offset}`;
    parts.push(
      { name: 'inserted', sql: insert },
      { name: 'run', sql: `UPDATE runs SET steps = ${steps}${status} WHERE id = ${id}` },
    );
  } else {
    parts.push({ name: 'inserted', sql: insert });
  }
  // The step's last statement, as a rule: it goes with the COMMIT (or the next step's read).
  await deferWrite(m, ...statementOf({ parts, params: values }));
}

/** Carries out a step's writes (StepWrites) as one statement. */
export async function writeStep(m: StepSql, writes: StepWrites): Promise<void> {
  await deferWrite(m, ...statementOf(writes));
}

/** Tasks nothing publishes (a person answers them) marked published. */
export async function markTasksPublished(m: StepSql, taskIds: string[]): Promise<void> {
  await deferWrite(m, 'UPDATE run_tasks SET published_at = now() WHERE id = ANY($1::uuid[])', [taskIds]);
}

/** The run waits for a person (`waitingJson`: what it waits for, as JSON text). */
export async function markRunWaiting(
  m: StepSql,
  runId: string,
  steps: number,
  waitingJson: string,
): Promise<void> {
  await deferWrite(m, `UPDATE runs SET steps = $2, status = 'waiting', waiting = $3 WHERE id = $1`, [
    runId,
    steps,
    waitingJson,
  ]);
}

/** A run's end (its error, output and turn usage as JSON text; a null usage keeps the run's). */
export async function finishRun(
  m: StepSql,
  end: {
    runId: string;
    status: string;
    errorJson: string | null;
    outputJson: string | null;
    usageJson: string | null;
    steps: number;
  },
): Promise<void> {
  await deferWrite(
    m,
    `UPDATE runs SET status = $2, error = $3, output = $4, usage = COALESCE($5, usage), steps = $6, finished_at = clock_timestamp(), waiting = NULL
       WHERE id = $1`,
    [end.runId, end.status, end.errorJson, end.outputJson, end.usageJson, end.steps],
  );
}

/** The thread free again, if `runId` is its active run. */
export async function releaseThread(m: StepSql, threadId: string, runId: string): Promise<void> {
  await deferWrite(m, 'UPDATE threads SET active_run_id = NULL WHERE id = $1 AND active_run_id = $2', [
    threadId,
    runId,
  ]);
}

/** The thread named `title` unless it has a name. */
export async function nameThread(m: StepSql, threadId: string, title: string): Promise<void> {
  await deferWrite(m, 'UPDATE threads SET title = $2 WHERE id = $1 AND title IS NULL', [threadId, title]);
}
