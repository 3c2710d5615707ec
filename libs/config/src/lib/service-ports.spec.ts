import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigException } from './load-config';
import { SERVICE_PORTS, servicePort } from './service-ports';

describe(servicePort.name, () => {
  it('takes the service’s own variable first, then PORT, then its default', () => {
    expect(servicePort('planner', { PORT: '8080', PLANNER_PORT: '9182' })).toBe(9182);
    expect(servicePort('planner', { PORT: '8080' })).toBe(8080);
    expect(servicePort('planner', {})).toBe(8082);
    // Another service's variable is not this one's.
    expect(servicePort('planner', { GATEWAY_PORT: '9000' })).toBe(8082);
  });

  it('counts an empty variable as not set', () => {
    expect(servicePort('gateway', { GATEWAY_PORT: '', PORT: '9001' })).toBe(9001);
    expect(servicePort('gateway', { PORT: '' })).toBe(8080);
  });

  it.each([
    ['PLANNER_PORT', { PLANNER_PORT: '80x' }, '"80x"'],
    ['PLANNER_PORT', { PLANNER_PORT: '70000', PORT: '8080' }, '"70000"'],
    ['PORT', { PORT: '0' }, '"0"'],
    ['PORT', { PORT: '-1' }, '"-1"'],
    // Shadowed by a good PLANNER_PORT, a bad PORT is still a mistake worth stopping for.
    ['PORT', { PLANNER_PORT: '9182', PORT: '8080.5' }, '"8080.5"'],
  ])('stops start-up naming %s when it is %j', (variable, env, shown) => {
    let err: unknown;
    try {
      servicePort('planner', env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigException);
    expect((err as Error).message).toContain(`${variable} (${shown}): must be a TCP port number (1-65535)`);
  });

  it('names the variables deploy/local/env.sh sets, with its defaults', () => {
    const envSh = readFileSync(join(__dirname, '../../../../deploy/local/env.sh'), 'utf8');
    for (const { variable, fallback } of Object.values(SERVICE_PORTS)) {
      expect(envSh).toContain(`: "\${${variable}:=${fallback}}"`);
    }
  });
});
