import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { componentIdOfNode } from '@switchyard/contracts';
import { WEB_TOOLS } from '@switchyard/provider-tools';
import { ProviderStandIn, TestStack } from '@switchyard/testing';
import { canvas } from './graph-fixtures';
import { WEB_TOOL_CASES, type WebToolCase } from './web-tools';

// RAGFlow's web tools (libs/provider-tools WEB_TOOLS) through real processes: each one's base URL
// moved by SWITCHYARD_PROVIDER_URL_<TOOL> to a local server answering in the real API's shape,
// reached through the address guard (SWITCHYARD_PROVIDER_ALLOW_HOSTS), each tool run as a canvas
// component and offered to an Agent whose model calls it.

const ADMIN = 'admin-token-for-the-web-tools-e2e';
let stack: TestStack;
let standIn: ProviderStandIn;
let tenant: { id: string; key: string };

// Email: a real SMTP server on loopback that offers STARTTLS with a certificate made for the test
// (trusted by the planner through NODE_EXTRA_CA_CERTS) and refuses AUTH before TLS.
const SMTP_PASSWORD = 'smtp-secret-of-the-tenant';
interface Mail {
  from: string;
  to: string[];
  data: string;
  secure: boolean;
}
const mails: Mail[] = [];
let smtp: SMTPServer;
let smtpPort = 0;
let certDir = '';

async function startSmtp(): Promise<void> {
  certDir = mkdtempSync(join(tmpdir(), 'sy-smtp-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  smtp = new SMTPServer({
    key: readFileSync(join(certDir, 'key.pem')),
    cert: readFileSync(join(certDir, 'cert.pem')),
    onAuth: (auth, _session, cb) =>
      auth.username === 'bot@example.com' && auth.password === SMTP_PASSWORD
        ? cb(null, { user: 'bot' })
        : cb(new Error('Invalid username or password')),
    onData: (stream, session, cb) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
}

const emailParams = (user = 'bot@example.com') => ({
  smtp_server: 'localhost',
  smtp_port: smtpPort,
  email: 'bot@example.com',
  smtp_username: user,
  sender_name: 'Report Bot',
  password: 'never-used-the-tenant-key-is',
});

const prefixOf = (c: WebToolCase) => c.envName.toLowerCase();

beforeAll(async () => {
  await startSmtp();
  standIn = new ProviderStandIn();
  for (const c of WEB_TOOL_CASES) {
    c.routes(standIn, prefixOf(c));
  }
  await standIn.start();
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1,localhost',
      NODE_EXTRA_CA_CERTS: join(certDir, 'cert.pem'),
      ...Object.fromEntries(
        WEB_TOOL_CASES.map((c) => [`SWITCHYARD_PROVIDER_URL_${c.envName}`, `${standIn.url}/${prefixOf(c)}`]),
      ),
    },
  });
  tenant = await stack.newTenant('web-tools', ADMIN);
  const keys = [
    ...WEB_TOOL_CASES.flatMap((c) => (c.key ? [c.key] : [])),
    { provider: 'smtp', secret: SMTP_PASSWORD },
  ];
  for (const key of keys) {
    const set = await stack.api(
      'PUT',
      `/v1/admin/tenants/${tenant.id}/provider-keys/${key.provider}`,
      { secret: key.secret },
      { Authorization: `Bearer ${ADMIN}` },
    );
    expect(set.status).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await standIn?.stop();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  rmSync(certDir, { recursive: true, force: true });
});

const asTenant = () => ({ Authorization: `Bearer ${tenant.key}` });

async function runAgent(name: string, dsl: Record<string, unknown>, prompt: string) {
  const agent = await stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl }, asTenant());
  expect(agent.status).toBe(201);
  const res = await stack.api('POST', '/v1/runs', { agent_id: agent.body.id, input: { prompt } }, asTenant());
  expect(res.status).toBe(202);
  const run = await stack.ended(res.body.run_id as string, 60_000, asTenant());
  const actions = (await stack.api('GET', `/v1/runs/${res.body.run_id}/actions`, undefined, asTenant())).body
    .actions as { node: string; result: { outputs?: Record<string, unknown> } }[];
  return { run, actions };
}

/** A case's texts with the stand-in's URL in place of STANDIN (the Crawler's page is the stand-in's). */
const located = <T>(value: T): T => JSON.parse(JSON.stringify(value).split('STANDIN').join(standIn.url)) as T;
/** An output as the component left it, as text (a list or an object as JSON). */
const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

describe.each(WEB_TOOL_CASES.map((c) => [c.component, c] as const))('%s', (_name, c) => {
  it('runs as a canvas component on the stand-in, its output shown by a Message', async () => {
    const id = `${c.component}:Tool`;
    const output = c.output ?? 'formalized_content';
    const { run, actions } = await runAgent(
      `web-${c.component}`,
      canvas({
        [id]: { name: c.component, params: c.params, downstream: ['Message:Show'] },
        'Message:Show': { name: 'Message', params: { content: [`{${id}@${output}}`] } },
      }),
      located(c.prompt),
    );
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    const outputs = actions.find((a) => componentIdOfNode(a.node) === id)?.result.outputs ?? {};
    for (const text of c.expected) {
      expect(asText(outputs[output])).toContain(text);
      expect(run.output.answer).toContain(text);
    }
  });

  it("is an Agent's tool: the model calls it and reads its answer", async () => {
    const fn = `${fnOf(c)}_0`;
    await stack.putScript({
      strict: true,
      models: ['scripted'],
      rules: [
        {
          name: 'call',
          times: 1,
          when: { last_role: 'user', has_tools: true },
          reply: { tool_calls: [{ name: fn, arguments: located(c.agent.args) }] },
        },
        {
          name: 'answer',
          times: 1,
          when: { last_role: 'tool', any_includes: c.agent.reads },
          reply: { content: `read it: ${fn}` },
        },
      ],
    });
    const { run } = await runAgent(
      `agent-${c.component}`,
      canvas({
        'Agent:Use': {
          name: 'Agent',
          params: {
            llm_id: 'scripted',
            sys_prompt: 'Use the tool.',
            prompts: [{ role: 'user', content: '{sys.query}' }],
            tools: [{ component_name: c.component, name: c.component, params: c.params }],
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Agent:Use@content}'] } },
      }),
      located(c.prompt),
    );
    expect(run.error).toBeNull();
    expect(run.output.answer).toMatch(new RegExp(`read it: ${fn}$`));
  });
});

describe('a canvas of three web tools and a counting Loop', () => {
  it('runs end to end: the Loop counts to 3 with its own variable, then Wikipedia, GitHub and ArXiv answer', async () => {
    const topic = 'Photosynthesis';
    const before = standIn.requests.length;
    const dsl = canvas({
      'Loop:Count': {
        name: 'Loop',
        params: {
          loop_variables: [{ variable: 'n', input_mode: 'constant', type: 'number', value: 0 }],
          logical_operator: 'and',
          loop_termination_condition: [
            { variable: 'Loop:Count@n', operator: '≥', input_mode: 'constant', value: 3 },
          ],
          maximum_loop_count: 10,
        },
        downstream: ['Wikipedia:Look'],
      },
      'Wikipedia:Look': {
        name: 'Wikipedia',
        params: { top_n: 2, language: 'en' },
        downstream: ['GitHub:Look'],
      },
      'GitHub:Look': { name: 'GitHub', params: { top_n: 2 }, downstream: ['ArXiv:Look'] },
      'ArXiv:Look': { name: 'ArXiv', params: { top_n: 2 }, downstream: ['Message:Show'] },
      'Message:Show': {
        name: 'Message',
        params: {
          content: [
            'n={Loop:Count@n}\n{Wikipedia:Look@formalized_content}\n{GitHub:Look@formalized_content}\n{ArXiv:Look@formalized_content}',
          ],
        },
      },
    }) as { components: Record<string, unknown> };
    // The Loop's body: its LoopItem, then a VariableAssigner counting on the Loop's own variable.
    dsl.components['LoopItem:Start'] = {
      obj: { component_name: 'LoopItem', params: {} },
      downstream: ['VariableAssigner:Inc'],
      upstream: [],
      parent_id: 'Loop:Count',
    };
    dsl.components['VariableAssigner:Inc'] = {
      obj: {
        component_name: 'VariableAssigner',
        params: { variables: [{ variable: 'Loop:Count@n', operator: '+=', parameter: 1 }] },
      },
      downstream: [],
      upstream: ['LoopItem:Start'],
      parent_id: 'Loop:Count',
    };
    const { run, actions } = await runAgent('web-three-tools-loop', dsl, topic);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(run.output.answer).toMatch(/^n=3\n/);
    for (const text of [
      'About Photosynthesis',
      'Photosynthesis-toolkit',
      'stars:4321',
      'A Survey of Photosynthesis',
    ]) {
      expect(run.output.answer).toContain(text);
    }
    const ran = actions.map((a) => componentIdOfNode(a.node)).filter(Boolean);
    expect(ran.filter((id) => id === 'VariableAssigner:Inc')).toHaveLength(3);
    expect(ran.slice(-4)).toEqual(['Wikipedia:Look', 'GitHub:Look', 'ArXiv:Look', 'Message:Show']);
    const paths = standIn.requests.slice(before).map((r) => r.path);
    expect(paths).toEqual(['/wikipedia/w/api.php', '/github/search/repositories', '/arxiv/api/query']);
  });
});

describe('on save', () => {
  it("refuses a web tool whose params RAGFlow's check() refuses, naming component and field", async () => {
    const res = await stack.api(
      'POST',
      '/v1/agents',
      {
        name: 'web-bad-params',
        kind: 'graph',
        dsl: canvas({
          'Wikipedia:W': { name: 'Wikipedia', params: { top_n: 0 }, downstream: ['Agent:A'] },
          'Agent:A': {
            name: 'Agent',
            params: {
              llm_id: 'scripted',
              tools: [{ component_name: 'Email', params: { email: 'a@example.com' } }],
            },
          },
        }),
      },
      asTenant(),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: 'dsl.components.Wikipedia:W.top_n',
          message: 'top_n must be a positive integer',
        }),
        expect.objectContaining({
          field: 'dsl.components.Agent:A.params.tools.0.params.smtp_server',
          message: 'Email tool: smtp_server must be set',
        }),
      ]),
    );
    expect(
      (await stack.api('GET', '/v1/agents', undefined, asTenant())).body.agents.map(
        (a: { name: string }) => a.name,
      ),
    ).not.toContain('web-bad-params');
  });
});

describe('Email', () => {
  it('sends an HTML mail over STARTTLS with the tenant key, To and CC, as RAGFlow does', async () => {
    const before = mails.length;
    const { run, actions } = await runAgent(
      'web-email',
      canvas({
        'Email:Send': {
          name: 'Email',
          params: {
            ...emailParams(),
            cc_email: 'boss@example.com,team@example.com',
            subject: 'Weekly',
            content: '<b>All good</b>',
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['sent={Email:Send@success}'] } },
      }),
      'reader@example.com',
    );
    expect(run.error).toBeNull();
    // RAGFlow's Message shows a bool as json.dumps does.
    expect(run.output.answer).toBe('sent=true');
    expect(actions.find((a) => componentIdOfNode(a.node) === 'Email:Send')?.result.outputs).toEqual({
      success: true,
    });
    const mail = mails.slice(before);
    expect(mail).toHaveLength(1);
    expect(mail[0].secure).toBe(true);
    expect(mail[0].from).toBe('bot@example.com');
    expect(mail[0].to).toEqual(['reader@example.com', 'boss@example.com', 'team@example.com']);
    expect(mail[0].data).toContain('Subject: Weekly');
    expect(mail[0].data).toContain('From: Report Bot <bot@example.com>');
    expect(mail[0].data).toContain('Content-Type: text/html');
    expect(mail[0].data).toContain('<b>All good</b>');
  });

  it("a login the server refuses fails the component with RAGFlow's message; nothing is sent", async () => {
    const before = mails.length;
    const { run } = await runAgent(
      'web-email-bad-login',
      canvas({
        'Email:Send': {
          name: 'Email',
          params: emailParams('intruder@example.com'),
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Email:Send@success}'] } },
      }),
      'reader@example.com',
    );
    expect(run.status).toBe('failed');
    expect(run.error.message).toContain('SMTP Authentication failed');
    expect(mails.length).toBe(before);
  });

  it("is an Agent's tool: the model writes the mail, the tool answers True", async () => {
    const before = mails.length;
    await stack.putScript({
      strict: true,
      models: ['scripted'],
      rules: [
        {
          name: 'call',
          times: 1,
          when: { last_role: 'user', tools_include: 'email_0' },
          reply: {
            tool_calls: [
              {
                name: 'email_0',
                arguments: { to_email: 'ceo@example.com', subject: 'Numbers', content: 'Up 3%' },
              },
            ],
          },
        },
        {
          name: 'answer',
          times: 1,
          when: { last_role: 'tool', any_includes: 'True' },
          reply: { content: 'mailed' },
        },
      ],
    });
    const { run } = await runAgent(
      'agent-email',
      canvas({
        'Agent:Mailer': {
          name: 'Agent',
          params: {
            llm_id: 'scripted',
            sys_prompt: 'Send the mail.',
            prompts: [{ role: 'user', content: '{sys.query}' }],
            tools: [{ component_name: 'Email', name: 'Email', params: emailParams() }],
          },
          downstream: ['Message:Show'],
        },
        'Message:Show': { name: 'Message', params: { content: ['{Agent:Mailer@content}'] } },
      }),
      'tell the ceo',
    );
    expect(run.error).toBeNull();
    expect(run.output.answer).toMatch(/mailed$/);
    expect(mails.slice(before).map((m) => m.to)).toEqual([['ceo@example.com']]);
  });
});

/** The function name the model sees (RAGFlow's meta name; the Agent appends `_<index>`). */
function fnOf(c: WebToolCase): string {
  const spec = WEB_TOOLS.find((s) => s.component === c.component);
  if (!spec) {
    throw new Error(`${c.component} is not one of WEB_TOOLS`);
  }
  return spec.functionName;
}
