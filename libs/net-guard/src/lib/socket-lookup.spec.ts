import { pinnedLookup } from './socket-lookup';

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
