import {
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  Role,
  type StreamResponse,
  type Task,
  TaskState,
  type TaskStatus,
} from '@a2a-js/sdk';
import type { RunStatus } from '@switchyard/contracts';
import type { RunWaiting } from '@switchyard/persistence';

/** A run as its task shows it: what the view of a task needs of the run. */
export interface TaskRun {
  id: string;
  thread_id: string;
  status: RunStatus;
  output: unknown;
  error: unknown;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  /** The prompt that started it (the task's first user message). */
  prompt: string;
  /** What it waits for, when it waits. */
  waiting: RunWaiting | null;
}

export const ANSWER_ARTIFACT = 'answer';

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** A message of the agent (a question, an answer, an error) within a task. */
export function agentMessage(run: { id: string; thread_id: string }, id: string, parts: Part[]): Message {
  return {
    messageId: id,
    contextId: run.thread_id,
    taskId: run.id,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The task's state for a run's status (a waiting run wants input). */
export function stateOf(status: RunStatus): TaskState {
  switch (status) {
    case 'queued':
      return TaskState.TASK_STATE_SUBMITTED;
    case 'running':
      return TaskState.TASK_STATE_WORKING;
    case 'waiting':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case 'succeeded':
      return TaskState.TASK_STATE_COMPLETED;
    case 'failed':
      return TaskState.TASK_STATE_FAILED;
    case 'cancelled':
      return TaskState.TASK_STATE_CANCELED;
  }
}

/** The run statuses a task state filter names (`ListTasks`); undefined: every status. */
export function statusesOf(state: TaskState): RunStatus[] | undefined {
  const all: RunStatus[] = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'];
  if (state === TaskState.TASK_STATE_UNSPECIFIED) {
    return undefined;
  }
  return all.filter((s) => stateOf(s) === state);
}

function answerOf(output: unknown): { text: string; structured: unknown } {
  const o = output as { answer?: unknown; structured?: unknown } | null;
  return { text: typeof o?.answer === 'string' ? o.answer : '', structured: o?.structured };
}

/** The answer of a finished run as the task's artifact: its text, and its data when structured. */
export function answerArtifact(output: unknown): Artifact {
  const { text, structured } = answerOf(output);
  return {
    artifactId: ANSWER_ARTIFACT,
    name: 'answer',
    description: "The agent's answer",
    parts: [textPart(text), ...(structured !== undefined ? [dataPart(structured)] : [])],
    metadata: undefined,
    extensions: [],
  };
}

/** The task's status: its state, when it changed, and the agent's word on it. */
export function statusOf(run: TaskRun): TaskStatus {
  const at = run.finished_at ?? run.started_at ?? run.created_at;
  let message: Message | undefined;
  if (run.status === 'waiting' && run.waiting) {
    message = agentMessage(run, `${run.id}:question:${run.waiting.task_id}`, [
      textPart(run.waiting.question),
      dataPart({ input_schema: run.waiting.input_schema }),
    ]);
  } else if (run.status === 'succeeded') {
    message = agentMessage(run, `${run.id}:answer`, [textPart(answerOf(run.output).text)]);
  } else if (run.status === 'failed') {
    const error = (run.error as { message?: string } | null)?.message ?? 'the run failed';
    message = agentMessage(run, `${run.id}:error`, [textPart(error)]);
  }
  return { state: stateOf(run.status), message, timestamp: new Date(at).toISOString() };
}

/**
 * A run as an A2A task: id = the run, contextId = its thread, the status, the answer as an
 * artifact once there is one, and the history (the prompt, and the agent's word last) cut to
 * `historyLength` most recent messages when asked.
 */
export function taskOf(run: TaskRun, historyLength?: number): Task {
  const status = statusOf(run);
  const user: Message = {
    messageId: `${run.id}:prompt`,
    contextId: run.thread_id,
    taskId: run.id,
    role: Role.ROLE_USER,
    parts: [textPart(run.prompt)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  const history = status.message ? [user, status.message] : [user];
  return {
    id: run.id,
    contextId: run.thread_id,
    status,
    artifacts: run.status === 'succeeded' ? [answerArtifact(run.output)] : [],
    history: historyLength === undefined ? history : historyLength <= 0 ? [] : history.slice(-historyLength),
    metadata: { run_id: run.id, thread_id: run.thread_id },
  };
}

export const taskEvent = (task: Task): StreamResponse => ({ payload: { $case: 'task', value: task } });

export function statusEvent(run: { id: string; thread_id: string }, status: TaskStatus): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { taskId: run.id, contextId: run.thread_id, status, metadata: undefined },
    },
  };
}

/** A piece of the answer as it streams (`append` after the first; `lastChunk` closes it). */
export function artifactEvent(
  run: { id: string; thread_id: string },
  parts: Part[],
  append: boolean,
  lastChunk: boolean,
): StreamResponse {
  return {
    payload: {
      $case: 'artifactUpdate',
      value: {
        taskId: run.id,
        contextId: run.thread_id,
        artifact: {
          artifactId: ANSWER_ARTIFACT,
          name: 'answer',
          description: "The agent's answer",
          parts,
          metadata: undefined,
          extensions: [],
        },
        append,
        lastChunk,
        metadata: undefined,
      },
    },
  };
}

/** An agent's card: one JSON-RPC interface (A2A 1.0 and 0.3) at `url`, the tenant's key as bearer. */
export function agentCardOf(
  agent: { id: string; name: string; description: string; kind: string; version: string },
  url: string,
): AgentCard {
  return {
    name: agent.name,
    description: agent.description,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: { url, organization: 'Switchyard' },
    version: agent.version,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: "The tenant's Switchyard API key", scheme: 'Bearer', bearerFormat: '' },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: agent.id,
        name: agent.name,
        description: agent.description,
        tags: [agent.kind],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
