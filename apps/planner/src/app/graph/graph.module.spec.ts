import { Global, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import {
  type ComponentContext,
  GraphException,
  KNOWN_COMPONENTS,
  componentsWith,
  parseCanvas,
} from '@switchyard/graph';
import { JetStreamConnection } from '@switchyard/jetstream';
import { ChatModels, EmbeddingModels, createChatModels, loadModelsConfig } from '@switchyard/models';
import { NodeDirectory, ServiceConfig } from '@switchyard/platform';
import { NatsServerProcess } from '@switchyard/testing';
import { type ComponentRunner, GRAPH_COMPONENT_RUNNERS } from './component-runner';
import { GraphComponents } from './graph-components';
import { GraphModule } from './graph.module';

// GraphModule as the planner builds it, on the app-wide infrastructure PlatformModule and
// ModelsModule give it: a real nats-server (started here), a Postgres DataSource and the model
// registry — neither of which building and starting the runners connects to.

jest.setTimeout(30_000);

const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function infrastructure(natsUrl: string) {
  @Global()
  @Module({
    providers: [
      { provide: DataSource, useFactory: () => new DataSource({ type: 'postgres', url: DATABASE_URL }) },
      { provide: ServiceConfig, useValue: { service: 'planner', env: { DATABASE_URL } } },
      {
        provide: JetStreamConnection,
        useFactory: () => JetStreamConnection.connect({ servers: natsUrl, name: 'graph-module-spec' }),
      },
      {
        provide: ChatModels,
        useFactory: (ds: DataSource) => createChatModels(ds, loadModelsConfig('planner')),
        inject: [DataSource],
      },
      {
        provide: EmbeddingModels,
        useFactory: (chat: ChatModels) => new EmbeddingModels(chat.router),
        inject: [ChatModels],
      },
    ],
    exports: [DataSource, ServiceConfig, JetStreamConnection, ChatModels, EmbeddingModels],
  })
  class AppInfrastructure {}

  @Module({ imports: [AppInfrastructure, GraphModule] })
  class SpecApp {}
  return SpecApp;
}

describe('GraphModule', () => {
  let nats: NatsServerProcess | undefined;
  let app: INestApplicationContext | undefined;

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    app = await NestFactory.createApplicationContext(infrastructure(nats.url), { logger: false });
  });

  afterAll(async () => {
    await app?.get(JetStreamConnection).close();
    await app?.close();
    await nats?.stop();
  });

  it('gives the app the node directory its Agents read', () => {
    expect(app!.get(NodeDirectory)).toBeInstanceOf(NodeDirectory);
  });

  it('runs every component validate-canvas accepts: a pure one or a registered runner', async () => {
    const runners = app!.get<ComponentRunner[]>(GRAPH_COMPONENT_RUNNERS);
    const registered = new Set(runners.flatMap((r) => r.names));
    const pure = componentsWith('pure');
    expect([...KNOWN_COMPONENTS].filter((c) => !pure.has(c) && !registered.has(c))).toEqual([]);
    // A runner for a name the canvas check refuses would never run: a misspelt registration.
    expect([...registered].filter((c) => !KNOWN_COMPONENTS.has(c))).toEqual([]);
    // A pure component runs from libs/graph, the same code the orchestrator runs inline.
    expect([...registered].filter((c) => pure.has(c))).toEqual([]);
    const components = app!.get(GraphComponents);
    expect([...KNOWN_COMPONENTS].filter((c) => !components.has(c))).toEqual([]);
    expect(components.has('Note')).toBe(false);
  });

  it('dispatches by name and refuses a name nothing runs', async () => {
    const components = app!.get(GraphComponents);
    const canvas = parseCanvas({
      components: {
        begin: { obj: { component_name: 'Begin', params: {} }, downstream: ['msg'], upstream: [] },
        msg: {
          obj: { component_name: 'Message', params: { content: ['Hi,{sys.query}!'] } },
          downstream: [],
          upstream: ['begin'],
        },
      },
      globals: {},
    });
    const tokens: string[] = [];
    const ctx = (component: ComponentContext['component']) =>
      ({
        canvas,
        component,
        scope: { globals: { 'sys.query': 'you' }, outputs: {} },
        prompt: 'you',
        emitToken: async (t: string) => void tokens.push(t),
      }) as unknown as ComponentContext;
    const message = await components.run(ctx(canvas.components['msg']));
    expect(message.outputs).toEqual({ content: 'Hi,you!' });
    expect(tokens).toEqual(['Hi,', 'you', '!']);
    await expect(components.run(ctx({ ...canvas.components['msg'], name: 'Retired' }))).rejects.toThrow(
      GraphException,
    );
    await expect(components.run(ctx({ ...canvas.components['msg'], name: 'Retired' }))).rejects.toThrow(
      'the Retired component cannot run here',
    );
  });
});
