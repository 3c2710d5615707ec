import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { type AppName, servicePort } from '@switchyard/config';
import { parseDockerfile } from './dockerfile';

// The Kubernetes manifests are checked against the code they deploy: every service has its
// Deployment, Service, autoscaler and disruption budget; probes name routes the services
// serve; every configured variable is one some service reads.

const ROOT = join(__dirname, '..', '..', '..');
const BASE = join(ROOT, 'deploy', 'k8s', 'base');

interface Doc {
  kind: string;
  metadata: { name: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects, read loosely
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

function load(file: string): Doc[] {
  // js-yaml throws with the file position on a syntax error.
  return loadAll(readFileSync(join(BASE, file), 'utf8'), null, { filename: file }) as Doc[];
}

const services = readdirSync(join(ROOT, 'apps')).filter((a) =>
  existsSync(join(ROOT, 'apps', a, 'src', 'main.ts')),
);
const sources = [join(ROOT, 'libs'), join(ROOT, 'apps')];

function allSource(dir: string): string {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts'))
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('deploy/k8s/base', () => {
  it('lists every manifest in its kustomization, and only the secret template is left out', () => {
    const kustomization = readFileSync(join(BASE, 'kustomization.yaml'), 'utf8');
    const listed = [...kustomization.matchAll(/^\s+- (\S+\.yaml)$/gm)].map((m) => m[1]).sort();
    const files = readdirSync(BASE)
      .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && f !== 'secrets.example.yaml')
      .sort();

    expect(listed).toEqual(files);
  });

  it.each(services)('deploys %s with probes on the routes it serves and a port it reads', (app) => {
    const docs = load(`${app}.yaml`);
    const kinds = docs.map((d) => `${d.kind}/${d.metadata.name}`).sort();
    // The gateway scales on CPU; every service with a JetStream consumer on its lag (KEDA).
    const scaler = app === 'gateway' ? 'HorizontalPodAutoscaler' : 'ScaledObject';
    expect(kinds).toEqual(
      [`Deployment/${app}`, `${scaler}/${app}`, `PodDisruptionBudget/${app}`, `Service/${app}`].sort(),
    );

    const deployment = docs.find((d) => d.kind === 'Deployment')!;
    const [container] = deployment.spec.template.spec.containers;
    const env = Object.fromEntries(
      container.env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    expect(env['APP']).toBe(app);
    // The port rule (its own variable, else PORT, else its default) is servicePort's.
    expect(readFileSync(join(ROOT, 'apps', app, 'src', 'main.ts'), 'utf8')).toContain(
      `servicePortOrExit('${app}')`,
    );
    expect(container.ports[0].containerPort).toBe(servicePort(app as AppName, env));
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(
      container.envFrom.map((e: Record<string, { name: string }>) => Object.values(e)[0].name).sort(),
    ).toEqual(['switchyard-config', 'switchyard-secrets']);
    expect(container.resources.requests.cpu).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();

    const selector = deployment.spec.selector.matchLabels;
    for (const other of docs.filter((d) => d.kind === 'Service' || d.kind === 'PodDisruptionBudget')) {
      expect(other.spec.selector.matchLabels ?? other.spec.selector).toEqual(selector);
    }
    const autoscaler = docs.find((d) => d.kind === scaler)!;
    expect(autoscaler.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: app });
    expect(autoscaler.spec.minReplicas ?? autoscaler.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
  });

  it('serves the probed routes from the shared health controller', () => {
    const health = readFileSync(join(ROOT, 'libs/platform/src/lib/health.controller.ts'), 'utf8');

    expect(health).toContain("@Get('healthz')");
    expect(health).toContain("@Get('readyz')");
  });

  it('configures only variables some service reads, and names every secret one', () => {
    const code = sources.map(allSource).join('\n');
    const [config] = load('config.yaml');
    const [secret] = load('secrets.example.yaml');
    const names = [...Object.keys(config.data ?? {}), ...Object.keys(secret.stringData ?? {})];

    const unread = names.filter((n) => !code.includes(n));
    expect(unread).toEqual([]);
    expect(Object.keys(secret.stringData ?? {})).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'SWITCHYARD_SECRET_KEY', 'SWITCHYARD_ADMIN_TOKEN']),
    );
  });

  it('builds one image whose command starts the app the Deployment names', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy/docker/Dockerfile'), 'utf8');
    const build = readFileSync(join(ROOT, 'tools/scripts/build.mjs'), 'utf8');

    expect(dockerfile).toContain('node tools/scripts/build.mjs');
    expect(build).toContain('dist');
    // The command starts an app that the build writes (the image itself is started by
    // tools/deploy/test/image-layout.e2e-spec.ts).
    const cmd = parseDockerfile(dockerfile).at(-1)?.cmd?.join(' ') ?? '';
    for (const app of ['gateway', 'planner']) {
      const entry = /node (\S+)/.exec(cmd.replace('${APP}', app))?.[1] ?? '';
      expect(existsSync(join(ROOT, 'apps', app, 'src', 'main.ts'))).toBe(true);
      expect(entry).toBe(`dist/apps/${app}/src/main.js`);
    }
  });
});
