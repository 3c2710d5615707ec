// The Responses API's stored responses, against the real Postgres.
import { randomUUID } from 'node:crypto';
import { specDatabase } from '../testing/spec-database';
import { type ResponseRow, ResponsesRepository } from './responses.repository';

jest.setTimeout(30_000);

describe(ResponsesRepository.name, () => {
  const pg = specDatabase('responses-repository-spec');
  let repo: ResponsesRepository;

  beforeAll(() => {
    repo = new ResponsesRepository(pg.ds);
  });

  it('stores a response, keeps the first ending, and deletes it only for its tenant', async () => {
    const t = await pg.tenant();
    const thread = await pg.thread(t);
    const run = await pg.run(t, thread);
    const row: Omit<ResponseRow, 'response' | 'created_at'> = {
      id: randomUUID(),
      tenant_id: t,
      run_id: run,
      thread_id: thread,
      previous_response_id: null,
      model: 'm',
      request: {
        instructions: null,
        tools: [],
        tool_choice: 'auto',
        text_format: { type: 'text' },
        metadata: { a: 'b' },
        user: null,
        background: false,
      },
      input: [{ id: 'msg_1', type: 'message', role: 'user', content: 'hi' }] as ResponseRow['input'],
      cursor: '0',
      answered: ['call_1'],
      usage_before: {
        prompt_tokens: 1,
        completion_tokens: 2,
        total_tokens: 3,
      } as ResponseRow['usage_before'],
    };
    const created = await repo.insert(row);
    expect(created).toEqual({ ...row, response: null, created_at: expect.any(Date) });
    expect(await repo.find(await pg.tenant(), row.id)).toBeNull();
    expect(await repo.finish(row.id, { status: 'completed' })).toEqual({ status: 'completed' });
    expect(await repo.finish(row.id, { status: 'failed' })).toEqual({ status: 'completed' });
    expect((await repo.find(t, row.id))?.response).toEqual({ status: 'completed' });
    expect(await repo.delete(await pg.tenant(), row.id)).toBe(false);
    expect(await repo.delete(t, row.id)).toBe(true);
    expect(await repo.find(t, row.id)).toBeNull();
  });
});
