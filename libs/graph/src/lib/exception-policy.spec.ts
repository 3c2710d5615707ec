import { exceptionOutcome } from './exception-policy';

describe(exceptionOutcome.name, () => {
  it.each([
    ['no method: the run fails', 'DataOperations', {}, { kind: 'fail', outputs: { _ERROR: 'boom' } }],
    [
      'comment with a default: result takes the default, no error',
      'ListOperations',
      { exception_method: 'comment', exception_default_value: 'n/a' },
      { kind: 'default', outputs: { result: 'n/a' } },
    ],
    [
      'comment on an LLM: content takes the default',
      'LLM',
      { exception_method: 'comment', exception_default_value: 'sorry' },
      { kind: 'default', outputs: { content: 'sorry' } },
    ],
    [
      'comment on Invoke (catches its own error): _ERROR set, the default shown as a message',
      'Invoke',
      { exception_method: 'comment', exception_default_value: 'offline' },
      { kind: 'message', outputs: { _ERROR: 'boom' }, message: 'offline' },
    ],
    [
      'goto: the listed components run instead of the successors',
      'YahooFinance',
      { exception_method: 'goto', exception_goto: ['Message:Sorry', ''] },
      { kind: 'goto', outputs: { _ERROR: 'boom' }, next: ['Message:Sorry'] },
    ],
    [
      'goto without targets and without a default fails',
      'Invoke',
      { exception_method: 'goto', exception_goto: [] },
      { kind: 'fail', outputs: { _ERROR: 'boom' } },
    ],
    [
      'a method of "" is no method: goto is ignored',
      'Invoke',
      { exception_method: '', exception_goto: ['Message:Sorry'] },
      { kind: 'fail', outputs: { _ERROR: 'boom' } },
    ],
    [
      'comment without a default fails',
      'Switch',
      { exception_method: 'comment', exception_default_value: '' },
      { kind: 'fail', outputs: { _ERROR: 'boom' } },
    ],
  ])('%s', (_case, component, params, outcome) => {
    expect(exceptionOutcome(component, params, 'boom')).toEqual(outcome);
  });
});
