import { anySignal } from './any-signal';

describe(anySignal.name, () => {
  it('aborts with the first source that aborts, and its reason', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = anySignal([a.signal, b.signal]);

    expect(signal.aborted).toBe(false);
    b.abort(new Error('cancelled'));
    a.abort(new Error('later'));

    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('cancelled');
  });

  it('is aborted from the start when a source already is', () => {
    const a = new AbortController();
    a.abort('gone');

    const { signal } = anySignal([new AbortController().signal, a.signal]);

    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('gone');
  });

  it('follows the sources no more once disposed', () => {
    const a = new AbortController();
    const { signal, dispose } = anySignal([a.signal]);

    dispose();
    a.abort();

    expect(signal.aborted).toBe(false);
  });

  it('fires its own abort listeners once', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = anySignal([a.signal, b.signal]);
    const heard = jest.fn();
    signal.addEventListener('abort', heard);

    a.abort();
    b.abort();

    expect(heard).toHaveBeenCalledTimes(1);
  });
});
