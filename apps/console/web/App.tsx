import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { SwitchyardApiError } from '@switchyard/client';
import { clientFor, session } from './api';
import { ChatPage } from './chat/ChatPage';
import { LangGraphChatPage } from './langgraph/LangGraphChatPage';
import { RunPage } from './RunPage';
import { RunsPage } from './RunsPage';

type Route =
  | { page: 'runs' }
  | { page: 'run'; runId: string }
  | { page: 'chat'; threadId?: string }
  | { page: 'langgraph'; threadId?: string };

/**
 * `#/` (runs), `#/runs/<id>` (a run), `#/chat` or `#/chat/<threadId>` (the end user's chat),
 * `#/langgraph` or `#/langgraph/<threadId>` (the same chat written with LangGraph's SDK).
 */
function useRoute(): Route {
  const read = (): Route => {
    const hash = window.location.hash;
    const run = /^#\/runs\/([0-9a-f-]{36})/.exec(hash);
    if (run) {
      return { page: 'run', runId: run[1] };
    }
    const chat = /^#\/chat(?:\/([0-9a-f-]{36}))?$/.exec(hash);
    if (chat) {
      return chat[1] ? { page: 'chat', threadId: chat[1] } : { page: 'chat' };
    }
    const lg = /^#\/langgraph(?:\/([0-9a-f-]{36}))?$/.exec(hash);
    if (lg) {
      return lg[1] ? { page: 'langgraph', threadId: lg[1] } : { page: 'langgraph' };
    }
    return { page: 'runs' };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function App() {
  const [key, setKey] = useState(session.key());
  const route = useRoute();
  const queries = useQueryClient();
  const client = useMemo(() => (key ? clientFor(key) : undefined), [key]);
  if (!client) {
    return (
      <SignIn
        onSignIn={(k) => {
          session.set(k);
          setKey(k);
        }}
      />
    );
  }
  return (
    <div className="app">
      <header>
        <a href="#/" className="brand">
          Switchyard
        </a>
        <nav>
          <a href="#/">Runs</a> <a href="#/chat">Chat</a> <a href="#/langgraph">LangGraph chat</a>
        </nav>
        <button
          data-testid="sign-out"
          onClick={() => {
            window.location.hash = '#/';
            session.clear();
            queries.clear();
            setKey(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        {route.page === 'run' ? (
          <RunPage client={client} runId={route.runId} />
        ) : route.page === 'chat' ? (
          <ChatPage client={client} {...(route.threadId ? { threadId: route.threadId } : {})} />
        ) : route.page === 'langgraph' && key ? (
          <LangGraphChatPage apiKey={key} {...(route.threadId ? { threadId: route.threadId } : {})} />
        ) : (
          <RunsPage client={client} />
        )}
      </main>
    </div>
  );
}

function SignIn({ onSignIn }: { onSignIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      // The key is checked against the gateway before it is kept.
      await clientFor(key.trim()).runs.list({ limit: 1 });
      onSignIn(key.trim());
    } catch (err) {
      setError(
        err instanceof SwitchyardApiError ? err.message : `the gateway could not be reached: ${String(err)}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="signin" onSubmit={(e) => void submit(e)}>
      <h1>Switchyard console</h1>
      <p>Sign in with your tenant&apos;s API key. It is kept in this tab only.</p>
      <input
        data-testid="api-key"
        type="password"
        placeholder="sk-…"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        autoFocus
      />
      <button data-testid="sign-in" disabled={busy || !key.trim()}>
        Sign in
      </button>
      {error && (
        <p className="error" data-testid="sign-in-error">
          {error}
        </p>
      )}
    </form>
  );
}
