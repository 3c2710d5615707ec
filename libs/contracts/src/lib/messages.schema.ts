import { z } from 'zod';
import { CommittedDeltaSchema, NodeNameSchema, StateDeltaSchema } from './state.schema';

// Messages over NATS JetStream (DESIGN.md §4).

/**
 * The W3C trace context a message travels in (`{ traceparent, tracestate? }`); absent when
 * tracing is off. In the payload rather than in NATS headers (docs/adr/0010).
 */
export const MessageTraceSchema = z.record(z.string(), z.string());

/** A run's priority within its tenant: `batch` runs' tasks yield to `interactive` runs' tasks. */
export const RunPrioritySchema = z.enum(['interactive', 'batch']);
export type RunPriority = z.infer<typeof RunPrioritySchema>;

export const RunStartMessageSchema = z
  .object({
    run_id: z.string().uuid(),
    thread_id: z.string().uuid(),
    tenant_id: z.string().uuid(),
    agent_id: z.string().min(1),
  })
  .strict();
export type RunStartMessage = z.infer<typeof RunStartMessageSchema>;

export const RunCancelMessageSchema = z.object({ run_id: z.string().uuid() }).strict();
export type RunCancelMessage = z.infer<typeof RunCancelMessageSchema>;

/** A service that cannot even read a task or delta reports it here, so the run fails visibly. */
export const RunFailMessageSchema = z
  .object({
    run_id: z.string().uuid(),
    code: z.string().min(1),
    message: z.string().min(1),
    subject: z.string().optional(),
  })
  .strict();
export type RunFailMessage = z.infer<typeof RunFailMessageSchema>;

export const TaskMessageSchema = z
  .object({
    task_id: z.string().uuid(),
    run_id: z.string().uuid(),
    thread_id: z.string().uuid(),
    turn: z.number().int().nonnegative(),
    node: NodeNameSchema,
    version: z.number().int().nonnegative(),
    step: z.number().int().nonnegative(),
    // Position of this task among the tasks of its step that name the same node: the n-th
    // `calculator` of a fan-out reads the n-th `calculator` call of the planner's action.
    call_index: z.number().int().nonnegative(),
    attempt: z.number().int().positive(),
    deadline: z.string().datetime(),
    trace: MessageTraceSchema.optional(),
    // Who the task works for and how urgently: node services dispatch the tasks they hold fairly
    // across tenants (by weight) and a tenant's interactive runs before its batch runs. Optional:
    // a task published before this field existed is dispatched as an interactive task of no tenant.
    // Node services act for this tenant only (they do not read `runs` to learn it): they fail a task
    // without one (libs/worker `taskTenant`). Every orchestrator since fair dispatch sets it.
    tenant_id: z.string().uuid().optional(),
    priority: RunPrioritySchema.optional(),
    // Committed deltas ending at `version` (those the service has not seen, within a byte budget),
    // so a node service whose cached state is a little behind catches up without reading
    // Postgres. Absent when the outbox sweeper re-publishes a task: the service then reads them.
    deltas: z.array(CommittedDeltaSchema).optional(),
  })
  .strict();
export type TaskMessage = z.infer<typeof TaskMessageSchema>;

const INT4_MAX = 2_147_483_647;

/**
 * One metered model call, as `model_usage` keeps it: carried in the delta of the task that made it,
 * so the step's own transaction writes it (one commit for the step and its calls) — or written by
 * the node service itself when no delta will carry it (libs/models `TaskCalls`). `call_id` makes
 * the write idempotent: a call is billed once whichever way, and however often, it arrives.
 */
export const MeteredCallSchema = z
  .object({
    call_id: z.string().uuid(),
    tenant_id: z.string().uuid(),
    business_id: z.string().nullable(),
    run_id: z.string().uuid().nullable(),
    task_id: z.string().uuid().nullable(),
    node: z.string().nullable(),
    attempt: z.number().int().nonnegative().nullable(),
    model_id: z.string().uuid(),
    key_id: z.string().uuid().nullable(),
    // Within the columns' types (integer; numeric(14,6)): a call's write must not fail on its data.
    prompt_tokens: z.number().int().nonnegative().max(INT4_MAX),
    completion_tokens: z.number().int().nonnegative().max(INT4_MAX),
    total_tokens: z.number().int().nonnegative().max(INT4_MAX),
    cost: z.number().nonnegative().max(99_999_999),
  })
  .strict();
export type MeteredCall = z.infer<typeof MeteredCallSchema>;

export const DeltaMessageSchema = z
  .object({
    task_id: z.string().uuid(),
    run_id: z.string().uuid(),
    node: NodeNameSchema,
    base_version: z.number().int().nonnegative(),
    delta: StateDeltaSchema,
    trace: MessageTraceSchema.optional(),
    // The task's tenant and priority, passed on: the orchestrator applies deltas fairly too.
    tenant_id: z.string().uuid().optional(),
    priority: RunPrioritySchema.optional(),
    // The task's model calls not yet written: the step's transaction writes them (whatever it
    // does with the delta: a late or duplicate delta's calls were still made and are billed).
    usage_calls: z.array(MeteredCallSchema).optional(),
  })
  .strict();
export type DeltaMessage = z.infer<typeof DeltaMessageSchema>;
