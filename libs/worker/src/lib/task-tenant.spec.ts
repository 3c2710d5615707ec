import { TaskTenantMissingError, taskTenant } from './task-tenant';

const RUN = '00000000-0000-4000-8000-000000000001';
const TENANT = '00000000-0000-4000-8000-0000000000aa';

describe('taskTenant', () => {
  it("is the task's tenant", () => {
    expect(taskTenant({ run_id: RUN, node: 'retrieval', tenant_id: TENANT })).toBe(TENANT);
  });

  it('fails a task without one, not retryable, naming the node and run', () => {
    let thrown: unknown;
    try {
      taskTenant({ run_id: RUN, node: 'retrieval' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TaskTenantMissingError);
    expect(thrown).toMatchObject({ retryable: false, code: 'task_without_tenant' });
    expect((thrown as Error).message).toContain(`"retrieval" of run ${RUN}`);
  });
});
