import 'reflect-metadata';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { AppModule } from '../app.module';
import { buildOpenApi } from './openapi';

type Ctor = new (...args: never[]) => unknown;

/** Every controller of the module tree (static and dynamic modules alike). */
function controllersOf(root: unknown, seen = new Set<unknown>()): Ctor[] {
  const mod = (root as { module?: unknown })?.module ?? root;
  if (!mod || seen.has(root)) {
    return [];
  }
  seen.add(root);
  const dynamic = root !== mod ? (root as { controllers?: Ctor[]; imports?: unknown[] }) : {};
  const controllers = [
    ...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, mod as object) as Ctor[] | undefined) ?? []),
    ...(dynamic.controllers ?? []),
  ];
  const imports = [
    ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, mod as object) as unknown[] | undefined) ?? []),
    ...(dynamic.imports ?? []),
  ];
  return [...controllers, ...imports.flatMap((m) => controllersOf(m, seen))];
}

const join = (...parts: string[]) =>
  `/${parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/** `METHOD /path/{param}` for every route the gateway's controllers serve. */
function routes(): string[] {
  const out = new Set<string>();
  for (const ctrl of controllersOf(AppModule)) {
    const bases = [Reflect.getMetadata(PATH_METADATA, ctrl) as string | string[] | undefined].flat();
    for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
      const handler = (ctrl.prototype as Record<string, unknown>)[name];
      if (name === 'constructor' || typeof handler !== 'function') {
        continue;
      }
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (method === undefined || paths === undefined) {
        continue;
      }
      // A catch-all handler answers the methods a route's clients use beside its own (MCP: GET, DELETE).
      const verbs = method === RequestMethod.ALL ? ['GET', 'DELETE'] : [RequestMethod[method]];
      for (const base of bases) {
        for (const path of [paths].flat()) {
          const openapiPath = join(base ?? '', path)
            .replace(/:([A-Za-z_]+)/g, '{$1}')
            .replace(/\/\*[A-Za-z_]*$/, '/{path}');
          verbs.forEach((v) => out.add(`${v} ${openapiPath}`));
        }
      }
    }
  }
  return [...out].sort();
}

describe('the OpenAPI document', () => {
  const doc = buildOpenApi();
  const documented = new Set(
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`),
    ),
  );

  it('finds the routes (the walk itself works)', () => {
    expect(routes()).toEqual(
      expect.arrayContaining([
        'POST /v1/runs',
        'GET /v1/runs/{run_id}/events',
        'POST /threads/{thread_id}/runs',
      ]),
    );
  });

  it('describes every route the gateway serves — its own, LangGraph, OpenAI and RAGFlow alike', () => {
    expect(routes().filter((r) => !documented.has(r))).toEqual([]);
  });

  it('describes no route the gateway does not serve', () => {
    const served = new Set(routes());
    const outside = ['GET /healthz', 'GET /readyz', 'GET /metrics'];
    expect([...documented].filter((r) => !served.has(r) && !outside.includes(r))).toEqual([]);
  });
});
