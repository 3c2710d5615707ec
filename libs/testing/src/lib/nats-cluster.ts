import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort, waitFor } from './free-port';
import { NatsServerProcess } from './nats-server';

export interface NatsClusterOptions {
  /** Servers in the cluster (3). */
  size?: number;
  /** Where the nodes keep their stores (`<dir>/<node>`); a temporary folder, removed on stop, unless given. */
  dir?: string;
  /** Each node's output goes to `<logDir>/nats-<node>.log` (kept in memory otherwise). */
  logDir?: string;
}

interface ClusterNode {
  name: string;
  port: number;
  clusterPort: number;
  monitorPort: number;
  server?: NatsServerProcess;
}

/**
 * A JetStream cluster of nats-servers on loopback (`n1`, `n2`, …), each with its own ports and
 * store, routes to every other. A node can be killed and started again on the same ports and
 * store, as a crashed pod is restarted with its volume.
 */
export class NatsCluster {
  private constructor(
    private readonly nodes: ClusterNode[],
    private readonly dir: string,
    private readonly ownDir: boolean,
    private readonly logDir?: string,
  ) {}

  static async start(opts: NatsClusterOptions = {}): Promise<NatsCluster> {
    const nodes: ClusterNode[] = [];
    for (let i = 1; i <= (opts.size ?? 3); i++) {
      nodes.push({
        name: `n${i}`,
        port: await freePort(),
        clusterPort: await freePort(),
        monitorPort: await freePort(),
      });
    }
    const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'sy-nats-cluster-'));
    const cluster = new NatsCluster(nodes, dir, !opts.dir, opts.logDir);
    try {
      // Together: JetStream answers once a majority of the nodes has elected a meta leader.
      await Promise.all(nodes.map((n) => cluster.startNode(n.name, false)));
      await cluster.waitHealthy();
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** Every node's client URL, comma-separated (as NATS_URL takes them). */
  get urls(): string {
    return this.nodes.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
  }

  get names(): string[] {
    return this.nodes.map((n) => n.name);
  }

  /** Kills a node (SIGKILL by default: a crash); its store stays for `startNode`. */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const node = this.node(name);
    await node.server?.kill(signal);
    node.server = undefined;
  }

  /** Starts a node (again) on its ports and store; it rejoins the cluster. */
  async startNode(name: string, waitForJetStream = true): Promise<void> {
    const node = this.node(name);
    if (node.server?.running) {
      return;
    }
    const store = join(this.dir, node.name);
    mkdirSync(store, { recursive: true });
    node.server = await NatsServerProcess.start({
      port: node.port,
      dir: store,
      logFile: this.logDir ? join(this.logDir, `nats-${node.name}.log`) : undefined,
      waitForJetStream: false,
      args: [
        '-n',
        node.name,
        '--cluster_name',
        'switchyard-test',
        '--cluster',
        `nats://127.0.0.1:${node.clusterPort}`,
        '--routes',
        this.nodes
          .filter((n) => n !== node)
          .map((n) => `nats://127.0.0.1:${n.clusterPort}`)
          .join(','),
        '-m',
        String(node.monitorPort),
      ],
    });
    if (waitForJetStream) {
      await this.waitHealthy([name]);
    }
  }

  /**
   * Waits until each running node (or each of `names`) says it is healthy: JetStream on, and
   * every stream and consumer replica it holds current with its leader (a restarted node has
   * caught up).
   */
  async waitHealthy(names = this.nodes.filter((n) => n.server?.running).map((n) => n.name)): Promise<void> {
    for (const name of names) {
      const node = this.node(name);
      await waitFor(
        `nats node ${name} to be healthy`,
        async () => (await fetch(`http://127.0.0.1:${node.monitorPort}/healthz`)).ok,
        60_000,
        200,
      );
    }
    await waitFor(
      'JetStream of the cluster to answer',
      async () => {
        const nc = await connect({ servers: this.urls.split(','), timeout: 1000, reconnect: false });
        try {
          await (await nc.jetstreamManager()).getAccountInfo();
          return true;
        } finally {
          await nc.close();
        }
      },
      60_000,
      200,
    );
  }

  /** The node that leads a stream's replicas right now (asked through any node up). */
  async leaderOf(stream: string): Promise<string> {
    return waitFor(
      `a leader of stream ${stream}`,
      async () => {
        const nc = await connect({ servers: this.urls.split(','), timeout: 1000, reconnect: false });
        try {
          const info = await (await nc.jetstreamManager()).streams.info(stream);
          return info.cluster?.leader || undefined;
        } finally {
          await nc.close();
        }
      },
      30_000,
      200,
    );
  }

  /**
   * Makes `node` the leader of `stream` (JetStream's leader step-down, again until the election
   * lands on it): a test can then kill the one node that leads several streams.
   */
  async moveLeader(stream: string, node: string): Promise<void> {
    this.node(node);
    const nc = await connect({ servers: this.urls.split(','), timeout: 2000 });
    try {
      for (let tries = 1; ; tries++) {
        const leader = await this.leaderOf(stream);
        if (leader === node) {
          return;
        }
        if (tries > 30) {
          throw new Error(`stream ${stream} kept electing ${leader}, not ${node}`);
        }
        await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 5000 });
        await waitFor(`stream ${stream} to elect a leader other than ${leader}`, async () => {
          const now = await this.leaderOf(stream);
          return now !== leader;
        });
      }
    } finally {
      await nc.close();
    }
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) {
      await node.server?.stop();
      node.server = undefined;
    }
    if (this.ownDir) {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  private node(name: string): ClusterNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) {
      throw new Error(`no node ${name} in the cluster (${this.names.join(', ')})`);
    }
    return node;
  }
}
