import {
  SERVICE_PORTS,
  SERVICE_WRITES,
  type AppName,
  servicePort,
  writeLocationPath,
} from '@switchyard/config';

// What a rendered Deployment's containers would do, worked out the way the services work it out:
// the environment each container starts with, then the code's own tables (libs/config) for the
// port it listens on and the directories it writes to.

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects, read loosely */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}
type Container = any;
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * The variables a container starts with: the image's ENV, under its ConfigMaps (`envFrom`), under
 * its own `env` values. Secrets are not rendered; none holds a port or a directory.
 */
export function containerEnv(
  container: Container,
  objects: K8sObject[],
  imageEnv: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = { ...imageEnv };
  for (const from of container.envFrom ?? []) {
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef?.name);
    Object.assign(env, map?.data ?? {});
  }
  for (const e of container.env ?? []) {
    if (typeof e.value === 'string') {
      env[e.name] = e.value;
    }
  }
  return env;
}

const isService = (app: string | undefined): app is AppName => !!app && app in SERVICE_PORTS;
const trimSlash = (path: string) => path.replace(/(.)\/+$/, '$1');
/** Whether `path` is written through a writable `dir` ('/' being a writable root file system). */
const within = (path: string, dir: string) => dir === '/' || path === dir || path.startsWith(`${dir}/`);

/**
 * Where each container of `deployment` may write, compared with where its service writes
 * (SERVICE_WRITES): every location must be writable (a read-only root needs an emptyDir at or
 * above it), and nothing else may be — a writable root only for a service that writes anywhere.
 */
export function writableProblems(
  deployment: K8sObject,
  objects: K8sObject[],
  imageEnv: Record<string, string>,
): string[] {
  const pod = deployment.spec.template.spec;
  return checkContainers(deployment, objects, imageEnv, ({ c, env, app, where }, problems) => {
    const writable: string[] = c.securityContext?.readOnlyRootFilesystem === true ? [] : ['/'];
    for (const m of c.volumeMounts ?? []) {
      const volume = (pod.volumes ?? []).find((v: { name: string }) => v.name === m.name);
      if (!volume) {
        problems.push(`${where}: mounts volume ${m.name}, which the pod does not have`);
      } else if (m.readOnly !== true && volume.emptyDir) {
        writable.push(trimSlash(m.mountPath));
      } else if (m.readOnly !== true && !(volume.configMap || volume.secret || volume.projected)) {
        problems.push(`${where}: ${m.mountPath} is writable storage other than an emptyDir`);
      }
    }
    const writes = SERVICE_WRITES[app].map((l) => ({ purpose: l.purpose, path: writeLocationPath(l, env) }));
    for (const w of writes) {
      if (!writable.some((dir) => within(w.path, dir))) {
        problems.push(
          `${where}: ${app} writes ${w.path} (${w.purpose}), which is not writable: a read-only root file system and no emptyDir at or above it`,
        );
      }
    }
    for (const dir of writable) {
      const needed =
        dir === '/' ? writes.some((w) => w.path === '/') : writes.some((w) => within(w.path, dir));
      if (!needed) {
        problems.push(
          dir === '/'
            ? `${where}: the root file system is writable, but ${app} needs ${writes.map((w) => w.path).join(', ') || 'no writable path'} (set readOnlyRootFilesystem)`
            : `${where}: ${dir} is writable, but ${app} writes nothing there`,
        );
      }
    }
  });
}

/**
 * The port each container listens on (servicePort on its environment) against the port it
 * declares, its probes, the Services selecting its pods and the Prometheus scrape annotation.
 */
export function portProblems(
  deployment: K8sObject,
  objects: K8sObject[],
  imageEnv: Record<string, string>,
): string[] {
  const template = deployment.spec.template;
  return checkContainers(deployment, objects, imageEnv, ({ c, env, app, where }, problems) => {
    const listens = servicePort(app, env);
    const numbered = (p: number | string | undefined) =>
      typeof p === 'string' ? c.ports?.find((x: { name?: string }) => x.name === p)?.containerPort : p;
    const pointed: [string, number | string | undefined][] = [
      ['its http port', c.ports?.find((p: { name?: string }) => p.name === 'http')?.containerPort],
      ['its readiness probe', numbered(c.readinessProbe?.httpGet?.port)],
      ['its liveness probe', numbered(c.livenessProbe?.httpGet?.port)],
      ['the prometheus.io/port annotation', Number(template.metadata.annotations?.['prometheus.io/port'])],
    ];
    for (const s of objects.filter((o) => o.kind === 'Service')) {
      const selects = Object.entries(s.spec.selector ?? {}).every(
        ([k, v]) => template.metadata.labels?.[k] === v,
      );
      for (const p of selects ? s.spec.ports : []) {
        pointed.push([
          `Service/${s.metadata.name} port ${p.name ?? p.port}`,
          numbered(p.targetPort ?? p.port),
        ]);
      }
    }
    for (const [what, port] of pointed) {
      if (port !== listens) {
        problems.push(
          `${where}: ${what} is ${port}, but ${app} listens on ${listens} (${SERVICE_PORTS[app].variable}, else PORT, else ${SERVICE_PORTS[app].fallback})`,
        );
      }
    }
  });
}

interface ServiceContainer {
  c: Container;
  env: Record<string, string>;
  app: AppName;
  /** `<deployment>/<container>`, for the messages. */
  where: string;
}

/** Runs `check` on each container of `deployment` that starts a service; the problems of all. */
function checkContainers(
  deployment: K8sObject,
  objects: K8sObject[],
  imageEnv: Record<string, string>,
  check: (container: ServiceContainer, problems: string[]) => void,
): string[] {
  const problems: string[] = [];
  for (const c of deployment.spec.template.spec.containers as Container[]) {
    const env = containerEnv(c, objects, imageEnv);
    const where = `${deployment.metadata.name}/${c.name}`;
    const app = env['APP'];
    if (isService(app)) {
      check({ c, env, app, where }, problems);
    } else {
      problems.push(`${where}: APP=${app} is not a service`);
    }
  }
  return problems;
}
