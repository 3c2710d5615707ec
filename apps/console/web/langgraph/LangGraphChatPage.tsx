import { Client, type Message, type Thread } from '@langchain/langgraph-sdk';
import { useStream } from '@langchain/langgraph-sdk/react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { fmtTime } from '../api';

/**
 * A chat written as a LangGraph Platform front end is (LangChain's agent-chat-ui): the official
 * `@langchain/langgraph-sdk` against the gateway's LangGraph surface — `useStream` submits and
 * streams, `threads.search` lists the conversations, and a conversation's messages come from
 * its thread's history. Nothing here knows it talks to Switchyard but the URL.
 */
export function LangGraphChatPage({ apiKey, threadId }: { apiKey: string; threadId?: string }) {
  const apiUrl = window.location.origin;
  const client = useMemo(() => new Client({ apiUrl, apiKey }), [apiUrl, apiKey]);
  const queries = useQueryClient();
  const [assistantId, setAssistantId] = useState('default');
  const assistants = useQuery({
    queryKey: ['lg-assistants'],
    queryFn: () => client.assistants.search({ limit: 100 }),
  });
  const threads = useQuery({
    queryKey: ['lg-threads'],
    queryFn: () => client.threads.search({ limit: 50, sortBy: 'updated_at', sortOrder: 'desc' }),
  });
  const stream = useStream<{ messages: Message[] }>({
    apiUrl,
    apiKey,
    assistantId,
    threadId: threadId ?? null,
    // As agent-chat-ui: the whole history (checkpoints), for branching.
    fetchStateHistory: true,
    // A reload while a run streams joins it again (the run's id is kept in sessionStorage).
    reconnectOnMount: true,
    onThreadId: (id) => {
      window.location.hash = `#/langgraph/${id}`;
    },
    onFinish: () => void queries.invalidateQueries({ queryKey: ['lg-threads'] }),
  });
  return (
    <section className="chat">
      <nav className="chat-threads" data-testid="lg-threads">
        <a href="#/langgraph" className="new-chat" data-testid="lg-new-chat">
          + New conversation
        </a>
        {threads.error && <p className="error">{threads.error.message}</p>}
        {(threads.data ?? []).map((t) => (
          <a
            key={t.thread_id}
            href={`#/langgraph/${t.thread_id}`}
            className={t.thread_id === threadId ? 'current' : ''}
            data-testid="lg-thread"
            data-thread={t.thread_id}
            data-status={t.status}
          >
            <span className="title">{titleOf(t)}</span>
            <span className="when">{fmtTime(t.updated_at)}</span>
          </a>
        ))}
      </nav>
      <div className="conversation">
        <label className="lg-assistant">
          Assistant{' '}
          <select
            data-testid="lg-assistant"
            value={assistantId}
            onChange={(e) => setAssistantId(e.target.value)}
            disabled={stream.isLoading}
          >
            {(assistants.data ?? [{ assistant_id: 'default', name: 'default' }]).map((a) => (
              <option key={a.assistant_id} value={a.assistant_id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <div className="messages">
          {stream.messages.map((m, i) => (
            <div
              key={m.id ?? i}
              className={`bubble ${m.type === 'human' ? 'user' : 'assistant'}`}
              data-testid="lg-message"
              data-type={m.type}
            >
              {textOf(m)}
            </div>
          ))}
        </div>
        {stream.error !== undefined && stream.error !== null && (
          <p className="error" data-testid="lg-error">
            {String((stream.error as Error).message ?? stream.error)}
          </p>
        )}
        <LangGraphComposer
          busy={stream.isLoading}
          onSend={(text) =>
            void stream.submit(
              { messages: [{ type: 'human', content: text }] },
              {
                optimisticValues: (prev) => ({
                  messages: [...(prev.messages ?? []), { type: 'human', content: text }],
                }),
              },
            )
          }
          onStop={() => void stream.stop()}
        />
      </div>
    </section>
  );
}

function LangGraphComposer({
  busy,
  onSend,
  onStop,
}: {
  busy: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}) {
  const [text, setText] = useState('');
  const send = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() && !busy) {
      onSend(text.trim());
      setText('');
    }
  };
  return (
    <form className="composer" onSubmit={send}>
      <textarea
        data-testid="lg-input"
        value={text}
        placeholder="Message…"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            send(e);
          }
        }}
      />
      {busy ? (
        <button type="button" data-testid="lg-stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button data-testid="lg-send" disabled={!text.trim()}>
          Send
        </button>
      )}
    </form>
  );
}

/** A message's text (string content, or its text blocks). */
function textOf(m: Message): string {
  if (typeof m.content === 'string') {
    return m.content;
  }
  return m.content.map((b) => ('text' in b && typeof b.text === 'string' ? b.text : '')).join('');
}

/** A thread's title: its first human message, as agent-chat-ui shows it. */
function titleOf(t: Thread): string {
  const messages = (t.values as { messages?: Message[] } | null)?.messages ?? [];
  const first = messages.find((m) => m.type === 'human');
  return first ? textOf(first).slice(0, 60) : 'New conversation';
}
