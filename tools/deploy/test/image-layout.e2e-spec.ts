import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SERVICE_APPS, TestStack, waitFor } from '@switchyard/testing';
import { type DockerStage, parseDockerfile } from '../src/dockerfile';

// The image's file layout, for real: what deploy/docker/Dockerfile's build stage leaves (the
// installed dependencies pruned to production ones, the build in dist/) is copied the way its
// last stage copies it, and every service is started there through the Dockerfile's own CMD
// and ENV. A wrong entry path, a runtime import of a dev dependency, or a file the last stage
// forgets to copy fails here — not in a cluster. (Building the image itself needs a registry or
// a debootstrapped base; this test needs neither.)

const ROOT = join(__dirname, '../../..');
const stages = parseDockerfile(readFileSync(join(ROOT, 'deploy/docker/Dockerfile'), 'utf8'));
const final = stages.at(-1)!;
const dir = join(ROOT, 'tmp', 'e2e', `image-${process.pid}`);

/** Where a path inside a stage lives in our reproduction of it. */
const inStage = (stage: DockerStage, root: string, path: string): string =>
  join(root, relative(stage.workdir, path.startsWith('/') ? path : join(stage.workdir, path)));

/** The build stage, reproduced: its installed node_modules and dist/ (hard links), pruned as it prunes. */
function reproduceBuildStage(stage: DockerStage, root: string): void {
  mkdirSync(root, { recursive: true });
  for (const path of ['node_modules', 'dist', 'package.json', 'package-lock.json']) {
    if (!existsSync(join(ROOT, path))) {
      throw new Error(`${path} is missing: install and build first`);
    }
    execFileSync('cp', ['-al', join(ROOT, path), join(root, path)]);
  }
  const prune = stage.runs.join(' && ').match(/npm prune ([^&]*)/);
  if (prune) {
    execFileSync('npm', ['prune', ...prune[1].trim().split(/\s+/), '--offline'], {
      cwd: root,
      stdio: 'ignore',
    });
  }
}

let stack: TestStack;

beforeAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const image = join(dir, 'image');
  mkdirSync(image, { recursive: true });
  const built = new Set<string>();
  for (const copy of final.copies) {
    const from = stages.find((s) => s.name === copy.from);
    if (!from) {
      throw new Error(
        `COPY --from=${copy.from}: no such stage (copies from the build context are not reproduced)`,
      );
    }
    const root = join(dir, `stage-${from.name}`);
    if (!built.has(root)) {
      reproduceBuildStage(from, root);
      built.add(root);
    }
    for (const source of copy.sources) {
      execFileSync('cp', ['-al', inStage(from, root, source), inStage(final, image, copy.dest)]);
    }
  }
  const [cmd, ...args] = final.cmd ?? [];
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    // What a production deployment must give (deploy/k8s secrets): the image runs NODE_ENV=production.
    env: { SWITCHYARD_SECRET_KEY: randomBytes(32).toString('hex') },
    launch: (app) => ({ cmd, args, cwd: image, env: { ...final.env, APP: app } }),
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the image's file layout", () => {
  it('starts every service through the Dockerfile command, and a run goes end to end', async () => {
    // Every service came up ready (TestStack waits for /readyz) from the image's files.
    for (const app of SERVICE_APPS) {
      expect(stack.log(app)).not.toMatch(/Cannot find module/);
    }
    const res = await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 2+3*4?' } });
    expect(res.status).toBe(202);
    const runId = res.body.run_id as string;
    await waitFor('the run to end', async () =>
      ['succeeded', 'failed'].includes((await stack.api('GET', `/v1/runs/${runId}`)).body.status as string),
    );
    const run = (await stack.api('GET', `/v1/runs/${runId}`)).body;
    expect(run.error).toBeNull();
    expect(run.output.answer).toContain('14');
  });
});
