import {
  canElicit,
  elicitable,
  elicitationAnswers,
  elicitationRequest,
  sessionIdFor,
} from './mcp-elicitation';

const RUN = '11111111-1111-4111-8111-111111111111';
const TASK = '22222222-2222-4222-8222-222222222222';

describe('MCP elicitation', () => {
  it('a session id records whether the client answers elicitations', () => {
    expect(canElicit(sessionIdFor({ elicitation: {} }))).toBe(true);
    expect(canElicit(sessionIdFor({ roots: {} }))).toBe(false);
    expect(canElicit(sessionIdFor(undefined))).toBe(false);
    expect(canElicit(undefined)).toBe(false);
    expect(canElicit('some-other-server-session')).toBe(false);
  });

  it('asks a string question as one answer field, and a flat form field by field', () => {
    expect(elicitable({ type: 'string' }, 'Your name?')).toEqual({
      wrapped: true,
      requestedSchema: {
        type: 'object',
        properties: { answer: { type: 'string', description: 'Your name?' } },
        required: ['answer'],
      },
    });
    expect(
      elicitable(
        {
          type: 'object',
          properties: {
            city: { description: 'City', 'x-ragflow-field': { type: 'line' } },
            days: { type: 'integer', minimum: 1 },
            kind: { type: 'string', enum: ['a', 'b'] },
          },
          required: ['city'],
        },
        'Where?',
      ),
    ).toEqual({
      wrapped: false,
      requestedSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City' },
          days: { type: 'integer', minimum: 1 },
          kind: { type: 'string', enum: ['a', 'b'] },
        },
        required: ['city'],
      },
    });
  });

  it('does not ask what MCP cannot (nested or list fields, other roots)', () => {
    expect(elicitable({ type: 'object', properties: { a: { type: 'object' } } }, 'q')).toBeNull();
    expect(elicitable({ type: 'object', properties: { a: { type: 'array' } } }, 'q')).toBeNull();
    expect(elicitable({ type: 'array' }, 'q')).toBeNull();
  });

  it("reads the client's answers to our questions, and nothing else", () => {
    const string = elicitationRequest(RUN, TASK, 'Your name?', elicitable({ type: 'string' }, 'Your name?')!);
    const form = elicitationRequest(
      RUN,
      TASK,
      'Where?',
      elicitable({ type: 'object', properties: {} }, 'Where?')!,
    );
    const id = (m: unknown) => (m as { id: string }).id;
    expect(
      elicitationAnswers({
        jsonrpc: '2.0',
        id: id(string),
        result: { action: 'accept', content: { answer: 'Ada' } },
      }),
    ).toEqual([{ id: id(string), run: RUN, task: TASK, action: 'accept', value: 'Ada' }]);
    expect(
      elicitationAnswers([
        { jsonrpc: '2.0', id: id(form), result: { action: 'accept', content: { city: 'Oslo' } } },
      ]),
    ).toEqual([{ id: id(form), run: RUN, task: TASK, action: 'accept', value: { city: 'Oslo' } }]);
    expect(
      elicitationAnswers({ jsonrpc: '2.0', id: id(form), result: { action: 'decline' } })?.[0].action,
    ).toBe('decline');
    expect(
      elicitationAnswers({
        jsonrpc: '2.0',
        id: id(form),
        error: { code: -32601, message: 'Method not found' },
      })?.[0].action,
    ).toBe('error');
    expect(elicitationAnswers({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeNull();
    expect(elicitationAnswers({ jsonrpc: '2.0', id: 7, result: {} })).toBeNull();
  });
});
