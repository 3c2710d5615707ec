import { CpuMeter, cpuMs, cpuTicksOf, rss, rssOf } from './proc';

describe(cpuTicksOf.name, () => {
  it.each([
    ['1234 (node) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 40 0 0 20 0 11 0 100 0 0', 290],
    ['99 (my proc) R) S 1 99 99 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 5 0 0', 10],
  ])('%s → %d', (stat, ticks) => {
    expect(cpuTicksOf(stat)).toBe(ticks);
  });
});

describe(rssOf.name, () => {
  it('reads VmRSS in bytes', () => {
    expect(rssOf('Name:\tnode\nVmRSS:\t   81234 kB\nThreads:\t11\n')).toBe(81234 * 1024);
  });
});

describe('this process', () => {
  it('has used some CPU and holds some memory', () => {
    expect(cpuMs(process.pid)).toBeGreaterThan(0);
    expect(rss(process.pid)).toBeGreaterThan(1024 * 1024);
  });
});

describe(CpuMeter.name, () => {
  it('adds up the CPU of its processes and breaks it down by name', async () => {
    const meter = new CpuMeter(
      () => Promise.resolve([process.pid, 999_999_999]),
      (pid) => (pid === process.pid ? 'me' : undefined),
    );
    await meter.start();
    // Busy for 60 ms of this process's own CPU time (not wall time: on a loaded machine 60 ms of
    // wall clock can be less than one clock tick of CPU).
    const from = process.cpuUsage();
    while (process.cpuUsage(from).user + process.cpuUsage(from).system < 60_000) {
      // busy: this process uses CPU
    }
    const total = await meter.stop();
    expect(total).toBeGreaterThan(0);
    expect(meter.breakdown.get('me')).toBe(total);
    // A pid that does not exist counts 0, under "other".
    expect(meter.breakdown.get('other')).toBe(0);
  });
});
