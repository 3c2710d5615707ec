import { pinnedLookup, refusal, vettingLookup } from './socket-lookup';

const HOST = 'target.sy.test';

describe(pinnedLookup.name, () => {
  it('answers asynchronously, as dns.lookup does, so a socket can listen before connect() fails', async () => {
    let answered = false;
    const done = new Promise<void>((resolve) =>
      pinnedLookup([{ address: '203.0.113.9', family: 4 }])(HOST, { family: 0 }, () => {
        answered = true;
        resolve();
      }),
    );
    expect(answered).toBe(false);
    await done;
    expect(answered).toBe(true);
  });
});

describe(`${pinnedLookup.name}: answers`, () => {
  const pinned = pinnedLookup([
    { address: '203.0.113.9', family: 4 },
    { address: '2001:db8::9', family: 6 },
  ]);
  const ask = (options: Parameters<typeof pinned>[1]) =>
    new Promise<unknown[]>((resolve) => pinned(HOST, options, (...args: unknown[]) => resolve(args)));

  it('gives every vetted address when all are asked for', async () => {
    const [err, addresses] = await ask({ all: true });
    expect(err).toBeNull();
    expect(addresses).toHaveLength(2);
  });

  it('gives only the asked family', async () => {
    expect(await ask({ family: 6 })).toEqual([null, '2001:db8::9', 6]);
    expect(await ask({ family: 4 })).toEqual([null, '203.0.113.9', 4]);
  });

  it('fails with ENOTFOUND when the family has no vetted address', async () => {
    const only4 = pinnedLookup([{ address: '203.0.113.9', family: 4 }]);
    const [err] = await new Promise<unknown[]>((resolve) =>
      only4(HOST, { family: 6 }, (...args: unknown[]) => resolve(args)),
    );
    expect(err).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe(refusal.name, () => {
  it('says how an operator allows the host', () => {
    expect(
      refusal('http://a.test', '10.0.0.1', 'a private address', 'SWITCHYARD_X_ALLOW_HOSTS').message,
    ).toBe(
      'refusing to connect to http://a.test: 10.0.0.1 is a private address (allow it with SWITCHYARD_X_ALLOW_HOSTS)',
    );
    expect(refusal('http://a.test', '10.0.0.1', 'a private address').message).toContain(
      'an operator can allow the host by name',
    );
  });
});

describe(vettingLookup.name, () => {
  const answer = async () => [{ address: '127.0.0.1' }];
  const ask = (lookup: ReturnType<typeof vettingLookup>) =>
    new Promise<unknown[]>((resolve) =>
      lookup('local.sy.test', { all: true }, (...args: unknown[]) => resolve(args)),
    );

  it('refuses a name that resolves to a non-public address, naming the allow-list', async () => {
    const [err] = await ask(vettingLookup(answer, { allowVariable: 'SWITCHYARD_X_ALLOW_HOSTS' }));
    expect((err as Error).message).toBe(
      'refusing to connect to local.sy.test: 127.0.0.1 is a loopback address (allow it with SWITCHYARD_X_ALLOW_HOSTS)',
    );
  });

  it('answers with the resolved addresses when vetting is off (an allowed host)', async () => {
    expect(await ask(vettingLookup(answer, { vet: false }))).toEqual([
      null,
      [{ address: '127.0.0.1', family: 4 }],
    ]);
  });
});
