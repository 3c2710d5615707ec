import { type FormEvent, useState } from 'react';

type Prop = { type?: string | string[]; description?: string; enum?: unknown[]; title?: string };
type Schema = { properties?: Record<string, Prop>; required?: string[]; type?: string };

/**
 * The form of a waiting run's question, generated from its `input_schema`: a field per property
 * (text, number, checkbox, or a choice for an enum); a schema without properties is one text answer.
 */
export function AskUserForm({
  waiting,
  onAnswer,
}: {
  waiting: { question: string; input_schema: Record<string, unknown> };
  onAnswer: (input: unknown) => Promise<unknown>;
}) {
  const schema = waiting.input_schema as Schema;
  const props = Object.entries(schema.properties ?? {});
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const typeOf = (p: Prop) => (Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type) ?? 'string';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      let input: unknown;
      if (!props.length) {
        const text = String(values[''] ?? '');
        input = schema.type === 'object' ? { answer: text } : text;
      } else {
        input = Object.fromEntries(
          props
            .filter(([k, p]) => values[k] !== undefined && (values[k] !== '' || typeOf(p) === 'string'))
            .map(([k, p]) => {
              const v = values[k];
              const t = typeOf(p);
              return [k, t === 'number' || t === 'integer' ? Number(v) : t === 'boolean' ? Boolean(v) : v];
            }),
        );
      }
      await onAnswer(input);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="ask-user" data-testid="ask-user" onSubmit={(e) => void submit(e)}>
      <h3>The run asks</h3>
      <p data-testid="question">{waiting.question}</p>
      {props.length === 0 && (
        <input
          data-testid="answer-field"
          value={String(values[''] ?? '')}
          onChange={(e) => setValues({ '': e.target.value })}
        />
      )}
      {props.map(([k, p]) => {
        const t = typeOf(p);
        const label = p.title ?? p.description ?? k;
        const required = schema.required?.includes(k);
        return (
          <label key={k}>
            {label}
            {required ? ' *' : ''}
            {p.enum ? (
              <select
                data-testid={`field-${k}`}
                value={String(values[k] ?? '')}
                onChange={(e) => setValues({ ...values, [k]: e.target.value })}
              >
                <option value="" />
                {p.enum.map((o) => (
                  <option key={String(o)} value={String(o)}>
                    {String(o)}
                  </option>
                ))}
              </select>
            ) : t === 'boolean' ? (
              <input
                type="checkbox"
                data-testid={`field-${k}`}
                checked={Boolean(values[k])}
                onChange={(e) => setValues({ ...values, [k]: e.target.checked })}
              />
            ) : (
              <input
                data-testid={`field-${k}`}
                type={t === 'number' || t === 'integer' ? 'number' : 'text'}
                required={required}
                value={String(values[k] ?? '')}
                onChange={(e) => setValues({ ...values, [k]: e.target.value })}
              />
            )}
          </label>
        );
      })}
      <button data-testid="answer-submit" disabled={busy}>
        Answer
      </button>
      {error && (
        <p className="error" data-testid="answer-error">
          {error}
        </p>
      )}
    </form>
  );
}
