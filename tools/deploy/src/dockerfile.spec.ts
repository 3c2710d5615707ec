import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDockerfile } from './dockerfile';

const ROOT = join(__dirname, '../../..');

describe('parseDockerfile', () => {
  it('reads stages, workdirs, copies, env, runs and the exec-form command', () => {
    const [build, run] = parseDockerfile(
      [
        'FROM node:20 AS build',
        'WORKDIR /src',
        'COPY package.json package-lock.json ./',
        'RUN npm install \\',
        '  --no-audit',
        '# a comment',
        'FROM node:20-slim',
        'ENV NODE_ENV=production LOG_FORMAT=json',
        'WORKDIR /app',
        'COPY --from=build /src/dist ./dist',
        'ENV APP=gateway PORT="8080"',
        'CMD ["sh", "-c", "exec node dist/apps/${APP}/src/main.js"]',
      ].join('\n'),
    );
    expect(build).toMatchObject({
      from: 'node:20',
      name: 'build',
      workdir: '/src',
      copies: [{ sources: ['package.json', 'package-lock.json'], dest: './' }],
      runs: ['npm install    --no-audit'],
    });
    expect(run).toMatchObject({
      workdir: '/app',
      copies: [{ from: 'build', sources: ['/src/dist'], dest: './dist' }],
      env: { NODE_ENV: 'production', LOG_FORMAT: 'json', APP: 'gateway', PORT: '8080' },
      cmd: ['sh', '-c', 'exec node dist/apps/${APP}/src/main.js'],
    });
  });

  it('expands the ARG defaults given before the first FROM in each FROM image', () => {
    const stages = parseDockerfile('ARG BASE=node:20-bookworm-slim\nFROM ${BASE} AS build\nFROM $BASE');
    expect(stages.map((s) => s.from)).toEqual(['node:20-bookworm-slim', 'node:20-bookworm-slim']);
  });

  it('takes a shell-form command through /bin/sh -c', () => {
    expect(parseDockerfile('FROM x\nCMD node main.js')[0].cmd).toEqual(['/bin/sh', '-c', 'node main.js']);
  });

  it.each([
    ['an instruction before FROM', 'WORKDIR /x', /before FROM/],
    ['a line with no argument', 'FROM x\nWORKDIR', /cannot read/],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseDockerfile(text)).toThrow(message);
  });

  it("reads the project's own Dockerfile: the last stage starts an app from what the build stage wrote", () => {
    const stages = parseDockerfile(readFileSync(join(ROOT, 'deploy/docker/Dockerfile'), 'utf8'));
    // The base image is an ARG (a local stand-in where Docker Hub is out of reach); its default is the official one.
    expect(stages.map((s) => s.from)).toEqual(['node:20-bookworm-slim', 'node:20-bookworm-slim']);
    const last = stages.at(-1)!;
    expect(last.cmd?.length).toBeGreaterThan(0);
    expect(last.copies.every((c) => stages.some((s) => s.name === c.from))).toBe(true);
  });
});
