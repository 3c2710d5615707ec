import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import {
  RunTranscript,
  type RunTranscriptSnapshot,
  SwitchyardApiError,
  type SwitchyardClient,
  type Thread,
  TokenText,
} from '@switchyard/client';
import { AskUserForm } from '../AskUserForm';
import { fmtTime } from '../api';
import { type ActiveRun, activeRunKey, activeRuns } from './active-runs';
import { useTypewriter } from './typewriter';

type Message = { role: 'user' | 'assistant' | 'system'; content: string };
/** How often, at most, a streaming answer's progress is written to localStorage. */
const SAVE_MS = 200;
/** A file attached to a message: uploaded at once, read by the run as `input.files[].file_id`. */
type Attachment = { name: string; type: string; file_id: string };

const errorText = (err: unknown): string =>
  err instanceof SwitchyardApiError ? err.message : `the gateway could not be reached: ${String(err)}`;

/**
 * The end user's chat (seed 004): the tenant's conversations, one conversation's messages, and
 * the answer of the run under way streamed as it is written. The active run of a thread is kept
 * in localStorage, so a reload (or a second tab on the thread) resumes its stream after the last
 * event it took, and shows no repeated and no missing text.
 */
export function ChatPage({ client, threadId }: { client: SwitchyardClient; threadId?: string }) {
  return (
    <section className="chat">
      <ThreadList client={client} current={threadId} />
      {threadId ? (
        <Conversation key={threadId} client={client} threadId={threadId} />
      ) : (
        <NewConversation client={client} />
      )}
    </section>
  );
}

function ThreadList({ client, current }: { client: SwitchyardClient; current?: string }) {
  const threads = useQuery({ queryKey: ['threads'], queryFn: () => client.threads.list({ limit: 50 }) });
  return (
    <nav className="chat-threads" data-testid="chat-threads">
      <a href="#/chat" className="new-chat" data-testid="new-chat">
        + New conversation
      </a>
      {threads.error && <p className="error">{threads.error.message}</p>}
      {(threads.data?.threads ?? []).map((t) => (
        <a
          key={t.thread_id}
          href={`#/chat/${t.thread_id}`}
          className={t.thread_id === current ? 'current' : ''}
          data-testid="chat-thread"
          data-thread={t.thread_id}
        >
          <span className="title">{t.title ?? 'New conversation'}</span>
          <span className="when">{fmtTime(t.created_at)}</span>
        </a>
      ))}
    </nav>
  );
}

/** The box a message is written in; Enter sends, Shift+Enter breaks the line; files attach to it. */
function Composer({
  client,
  onSend,
  disabled,
  children,
}: {
  client: SwitchyardClient;
  onSend: (prompt: string, files: Attachment[]) => Promise<void>;
  disabled: boolean;
  children?: React.ReactNode;
}) {
  const [prompt, setPrompt] = useState('');
  const [files, setFiles] = useState<Attachment[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const attach = async (chosen: FileList | null) => {
    setError('');
    setBusy(true);
    try {
      for (const f of Array.from(chosen ?? [])) {
        const stored = await client.files.upload(f, f.name);
        setFiles((prev) => [...prev, { name: stored.name, type: stored.mime_type, file_id: stored.id }]);
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const text = prompt.trim();
    if (!text || busy || disabled) {
      return;
    }
    setBusy(true);
    setError('');
    try {
      await onSend(text, files);
      setPrompt('');
      setFiles([]);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };
  return (
    <form className="composer" onSubmit={(e) => void send(e)}>
      <textarea
        data-testid="chat-input"
        placeholder="Message…"
        value={prompt}
        rows={2}
        onChange={(e) => setPrompt(e.target.value)}
        onKeyDown={onKey}
      />
      <label className="attach">
        Attach
        <input
          type="file"
          multiple
          data-testid="chat-attach"
          disabled={busy}
          onChange={(e) => {
            void attach(e.target.files);
            e.target.value = '';
          }}
        />
      </label>
      <button data-testid="chat-send" disabled={busy || disabled || !prompt.trim()}>
        Send
      </button>
      {files.length > 0 && (
        <div className="attachments">
          {files.map((f) => (
            <span key={f.file_id} className="attachment" data-testid="chat-attachment">
              {f.name}
              <button
                type="button"
                title="Remove"
                onClick={() => setFiles((prev) => prev.filter((x) => x.file_id !== f.file_id))}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      {children}
      {error && (
        <p className="error" data-testid="chat-error">
          {error}
        </p>
      )}
    </form>
  );
}

function NewConversation({ client }: { client: SwitchyardClient }) {
  const queries = useQueryClient();
  const send = async (prompt: string, files: Attachment[]) => {
    const run = await client.runs.create({ input: { prompt, ...(files.length ? { files } : {}) } });
    activeRuns.put(run.thread_id, {
      prompt,
      before: 0,
      transcript: new RunTranscript(run.run_id).snapshot(),
    });
    void queries.invalidateQueries({ queryKey: ['threads'] });
    window.location.hash = `#/chat/${run.thread_id}`;
  };
  return (
    <div className="conversation">
      <h2 data-testid="chat-title">New conversation</h2>
      <div className="messages" />
      <Composer client={client} onSend={send} disabled={false} />
    </div>
  );
}

/**
 * Follows the thread's active run: from the kept transcript (resuming after its last `seq`), or
 * from the start when this tab knows only the run's id. Every event taken is kept again, so a
 * reload at any moment resumes where this tab stopped. Another tab's run on the same thread is
 * picked up from the `storage` event.
 */
function useActiveRun(
  client: SwitchyardClient,
  threadId: string,
  thread: Thread | undefined,
): {
  active: ActiveRun | null;
  view: RunTranscriptSnapshot | null;
  start: (a: ActiveRun) => void;
  done: () => void;
} {
  const [active, setActive] = useState<ActiveRun | null>(() => activeRuns.get(threadId));
  const [view, setView] = useState<RunTranscriptSnapshot | null>(() => active?.transcript ?? null);
  const runId = active?.transcript.run_id;
  // Runs this tab saw end: a late write of another tab (or a stale thread) does not bring one back.
  const finished = useRef(new Set<string>());

  // A run this tab did not start: another tab's (storage event), or one found on the thread.
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key !== activeRunKey(threadId) || !e.newValue) {
        return;
      }
      const kept = activeRuns.get(threadId);
      if (kept && kept.transcript.run_id !== runId && !finished.current.has(kept.transcript.run_id)) {
        setActive(kept);
        setView(kept.transcript);
      }
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [threadId, runId]);
  useEffect(() => {
    if (!runId && thread?.active_run_id && !finished.current.has(thread.active_run_id)) {
      const found = {
        prompt: null,
        before: null,
        transcript: new RunTranscript(thread.active_run_id).snapshot(),
      };
      activeRuns.put(threadId, found);
      setActive(found);
      setView(found.transcript);
    }
  }, [runId, thread?.active_run_id, threadId]);

  useEffect(() => {
    if (!active) {
      return;
    }
    const stop = new AbortController();
    const kept = activeRuns.get(threadId);
    const transcript = new RunTranscript(
      active.transcript.run_id,
      kept?.transcript.run_id === active.transcript.run_id ? kept.transcript : active.transcript,
    );
    setView(transcript.snapshot());
    if (transcript.ended) {
      finished.current.add(transcript.runId);
      return;
    }
    // Tokens are kept at most every SAVE_MS (a long answer's every token would rewrite the whole
    // snapshot): what a reload misses since is replayed after the kept seq, and skipped once seen.
    let savedAt = 0;
    void (async () => {
      try {
        for await (const e of client.events(transcript.runId, {
          ...(transcript.lastSeq ? { after: transcript.lastSeq } : {}),
          signal: stop.signal,
          maxReconnects: 100,
        })) {
          // A repeated event (a replay, another tab's resume) is skipped by its seq.
          if (!transcript.add(e)) {
            continue;
          }
          const snapshot = transcript.snapshot();
          if (transcript.ended) {
            finished.current.add(transcript.runId);
            activeRuns.clear(threadId, transcript.runId);
          } else if (e.event_type !== 'token' || Date.now() - savedAt >= SAVE_MS) {
            activeRuns.put(threadId, { ...active, transcript: snapshot });
            savedAt = Date.now();
          }
          setView(snapshot);
        }
      } catch (err) {
        if (!stop.signal.aborted) {
          setView({ ...transcript.snapshot(), error: { code: 'stream_lost', message: errorText(err) } });
        }
      }
    })();
    return () => stop.abort();
    // Followed once per run: `active` changes only with the run.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, threadId, runId]);

  const start = useCallback(
    (a: ActiveRun) => {
      activeRuns.put(threadId, a);
      setActive(a);
      setView(a.transcript);
    },
    [threadId],
  );
  const done = useCallback(() => {
    if (runId) {
      finished.current.add(runId);
      activeRuns.clear(threadId, runId);
    }
    setActive(null);
    setView(null);
  }, [threadId, runId]);
  return { active, view, start, done };
}

function Conversation({ client, threadId }: { client: SwitchyardClient; threadId: string }) {
  const queries = useQueryClient();
  const thread = useQuery({ queryKey: ['thread', threadId], queryFn: () => client.threads.get(threadId) });
  const state = useQuery({
    queryKey: ['thread', threadId, 'state'],
    queryFn: () => client.threads.state(threadId),
  });
  const { active, view, start, done } = useActiveRun(client, threadId, thread.data);
  const [notes, setNotes] = useState<{ after: number; text: string }[]>([]);
  const history = (state.data?.chat_history ?? []) as Message[];
  const fullAnswer = view ? new TokenText(view.answer).text : '';
  const answer = useTypewriter(fullAnswer);
  const ending = useRef<string | null>(null);
  const [refreshedFor, setRefreshedFor] = useState<string | null>(null);

  // The end of a run: the thread (its title) and its history are read again; the streamed answer
  // gives way to the history's once it is typed out and the history has it.
  useEffect(() => {
    if (!view?.ended || ending.current === view.run_id) {
      return;
    }
    ending.current = view.run_id;
    const ended = view;
    void (async () => {
      const [fresh] = await Promise.all([state.refetch(), thread.refetch()]);
      void queries.invalidateQueries({ queryKey: ['threads'] });
      if (ended.status !== 'succeeded') {
        const why = ended.error?.message ? `: ${ended.error.message}` : '';
        const said = ended.status === 'cancelled' ? 'was stopped' : ended.status;
        setNotes((n) => [
          ...n,
          { after: fresh.data?.chat_history.length ?? 0, text: `The run ${said}${why}` },
        ]);
      }
      setRefreshedFor(ended.run_id);
    })();
  }, [view, state, thread, queries]);
  useEffect(() => {
    if (view?.ended && refreshedFor === view.run_id && answer === fullAnswer) {
      done();
    }
  }, [view, answer, fullAnswer, refreshedFor, done]);
  // The title comes with the first turn's steps: read again while there is none.
  useEffect(() => {
    if (view && !thread.data?.title && view.steps.length) {
      void thread.refetch();
    }
  }, [view?.steps.length, thread]); // eslint-disable-line react-hooks/exhaustive-deps

  if (thread.error) {
    return <p className="error">{thread.error.message}</p>;
  }
  // Under way: the turn's own messages are the prompt and the streamed answer.
  const before =
    active?.before ?? (active ? Math.max(0, history.map((m) => m.role).lastIndexOf('user')) : history.length);
  const shown = active ? history.slice(0, before) : history;
  const prompt = active ? (history[before]?.role === 'user' ? history[before].content : active.prompt) : null;
  const send = async (text: string, files: Attachment[]) => {
    const run = await client.runs.create({
      input: { prompt: text, ...(files.length ? { files } : {}) },
      thread_id: threadId,
    });
    start({ prompt: text, before: history.length, transcript: new RunTranscript(run.run_id).snapshot() });
  };
  const running = view && !view.ended;
  return (
    <div className="conversation">
      <h2 data-testid="chat-title">{thread.data?.title ?? 'New conversation'}</h2>
      <div className="messages" data-testid="messages">
        {shown.map((m, i) => (
          <Bubble key={i} role={m.role} text={m.content} notes={notes.filter((n) => n.after === i + 1)} />
        ))}
        {!active && notes.filter((n) => n.after > shown.length).map((n, i) => <Note key={i} text={n.text} />)}
        {prompt && <Bubble role="user" text={prompt} />}
        {view && (
          <div className="bubble assistant streaming" data-testid="streaming-answer" data-run={view.run_id}>
            <span data-testid="streaming-text">{answer}</span>
            {running && <Progress view={view} />}
          </div>
        )}
        {view?.waiting && view.status === 'waiting' && (
          <AskUserForm
            waiting={{
              question: view.waiting.question,
              input_schema: (view.waiting.input_schema ?? {}) as Record<string, unknown>,
            }}
            onAnswer={(input) => client.runs.resume(view.run_id, input)}
          />
        )}
        {view?.error && view.error.code === 'stream_lost' && (
          <p className="error" data-testid="chat-stream-error">
            {view.error.message}
          </p>
        )}
      </div>
      <Composer client={client} onSend={send} disabled={!!running}>
        {running && (
          <button
            type="button"
            data-testid="chat-cancel"
            onClick={() => void client.runs.cancel(view.run_id).catch(() => undefined)}
          >
            Stop
          </button>
        )}
      </Composer>
    </div>
  );
}

function Bubble({ role, text, notes = [] }: { role: string; text: string; notes?: { text: string }[] }) {
  return (
    <>
      <div className={`bubble ${role}`} data-testid="message" data-role={role}>
        {text}
      </div>
      {notes.map((n, i) => (
        <Note key={i} text={n.text} />
      ))}
    </>
  );
}

const Note = ({ text }: { text: string }) => (
  <p className="note" data-testid="chat-note">
    {text}
  </p>
);

/** What the run is doing: its steps so far and the nodes at work. */
function Progress({ view }: { view: RunTranscriptSnapshot }) {
  return (
    <div className="progress" data-testid="chat-progress">
      {view.steps.map((s) => (
        <span key={s.id} className={s.failed ? 'step failed' : 'step'}>
          {s.node} ✓
        </span>
      ))}
      {view.running.map((r) => (
        <span key={r.task_id} className="step running">
          {r.node}…
        </span>
      ))}
      {view.status === 'queued' && <span className="step running">queued…</span>}
    </div>
  );
}
