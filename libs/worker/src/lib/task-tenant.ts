import type { RunErrorCode, TaskMessage } from '@switchyard/contracts';

/** A task that names no tenant: a node acts for the task's tenant only, so it cannot act at all. */
export class TaskTenantMissingError extends Error {
  readonly retryable = false;
  readonly code = 'task_without_tenant' satisfies RunErrorCode;
}

/**
 * The tenant a task works for: the only tenant a node service acts for while running it (whose
 * collections it searches, whose MCP servers it calls, whose rows it reads).
 *
 * `TaskMessage.tenant_id` is optional in the contract only because tasks published before fair
 * dispatch had none; every orchestrator since then sets it on each task it publishes (route-step,
 * and the outbox's sweep and reaper read it back with the task). A task without it is therefore
 * a message from before that release: rather than look its run up (node services no longer read
 * `runs` to learn a tenant) or act for no tenant, the task fails at once, naming why.
 */
export function taskTenant(task: Pick<TaskMessage, 'tenant_id' | 'run_id' | 'node'>): string {
  if (!task.tenant_id) {
    throw new TaskTenantMissingError(
      `task of node "${task.node}" of run ${task.run_id} names no tenant (published by an orchestrator older than tenant_id on tasks): not run for any tenant`,
    );
  }
  return task.tenant_id;
}
