import { type AgentConfig, graphNodeName } from '@switchyard/contracts';
import { ApiException } from '../http/api.exception';
import { resolveBreakpoints } from './breakpoints';

const plain: AgentConfig = { name: 'plain', max_steps: 50 };
const registered = (node: string) => Promise.resolve(node === 'calculator');
const canvas: AgentConfig = {
  name: 'c',
  max_steps: 50,
  kind: 'graph',
  dsl: {
    components: {
      begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['Message:Hi'], upstream: [] },
      'Message:Hi': {
        obj: { component_name: 'Message', params: { content: ['hi'] } },
        downstream: [],
        upstream: ['begin'],
      },
    },
  },
};
const workflow: AgentConfig = {
  name: 'w',
  max_steps: 50,
  kind: 'graph',
  dsl: {
    blocks: {
      '1': { label: 'a', type: 'text', data: { content: 'x' } },
      '2': { label: 'b', type: 'text', data: { content: '' } },
    },
    edges: {
      'modify-1': {
        type: 'modify',
        data: { modify_type: 'copy', content: '{{a}}', inputs: { '1': 'a' }, outputs: { '2': 'b' } },
      },
    },
    version: '0.2',
  },
};

async function problems(config: AgentConfig, bp: Parameters<typeof resolveBreakpoints>[1]) {
  const err = await resolveBreakpoints(config, bp, registered).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiException);
  return (err as ApiException).details;
}

describe(resolveBreakpoints.name, () => {
  it("keeps the default agent's own nodes, tools and registered tools; * stays *", async () => {
    expect(
      await resolveBreakpoints(
        plain,
        { before: ['planner', 'tools', 'calculator', 'planner'], after: '*' },
        registered,
      ),
    ).toEqual({ before: ['planner', 'tools', 'calculator'], after: '*' });
  });

  it('names what the default agent lacks, each entry by its index', async () => {
    expect(await problems(plain, { before: ['planner', 'http_get'], after: ['Nope!'] })).toEqual([
      {
        field: 'breakpoints.before[1]',
        message: expect.stringContaining('"http_get" is not a node of the agent'),
      },
      { field: 'breakpoints.after[0]', message: expect.stringContaining('"Nope!" is not a node') },
    ]);
  });

  it("names a canvas's components as its nodes; refuses another id", async () => {
    expect(await resolveBreakpoints(canvas, { before: ['Message:Hi'] }, registered)).toEqual({
      before: [graphNodeName('Message:Hi')],
    });
    expect(await problems(canvas, { after: ['planner'] })).toEqual([
      {
        field: 'breakpoints.after[0]',
        message: '"planner" is not a component of the canvas (begin, Message:Hi)',
      },
    ]);
  });

  it("names a workflow's edges as its nodes", async () => {
    expect(await resolveBreakpoints(workflow, { after: ['modify-1'] }, registered)).toEqual({
      after: [graphNodeName('modify-1')],
    });
    expect(await problems(workflow, { after: ['1'] })).toEqual([
      { field: 'breakpoints.after[0]', message: '"1" is not an edge of the workflow (modify-1)' },
    ]);
  });
});
