import { useRef, useState } from 'preact/hooks';
import { ApiError, errorMessage, gatewayRoot, idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { readSse } from '../sse.ts';
import { ErrorNote, Field, Page, usePoll } from '../ui.tsx';
import type { Model } from './models.tsx';

interface Usage {
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  readonly total_tokens?: number;
}

/** Streams a Responses API call (`stream: true`, Server-Sent Events read from fetch) and shows the text as it arrives. */
export function Playground({ api }: PageProps) {
  const models = usePoll(() => api.listAll<Model>('models'), 0);
  const [output, setOutput] = useState('');
  const [status, setStatus] = useState<'idle' | 'streaming' | 'done' | 'stopped'>('idle');
  const [usage, setUsage] = useState<Usage | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);

  const send = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const maxTokens = Number(data.get('maxOutputTokens'));
    const instructions = String(data.get('instructions')).trim();
    const controller = new AbortController();
    abort.current = controller;
    setOutput('');
    setUsage(undefined);
    setError(undefined);
    setStatus('streaming');
    try {
      const response = await fetch(`${gatewayRoot()}inference/v1/responses`, {
        method: 'POST',
        headers: { ...api.headers(true), accept: 'text/event-stream' },
        signal: controller.signal,
        body: JSON.stringify({
          model: String(data.get('model')),
          input: String(data.get('input')),
          stream: true,
          store: false,
          ...(instructions ? { instructions } : {}),
          ...(maxTokens > 0 ? { max_output_tokens: maxTokens } : {}),
        }),
      });
      if (!response.ok || !response.body) {
        const body: unknown = await response.json().catch(() => undefined);
        throw new ApiError(response.status, errorMessage(response.status, body));
      }
      await readSse(response.body, ({ data: payload }) => {
        if (payload === '[DONE]') return;
        const streamed = JSON.parse(payload) as { type?: string; delta?: string; response?: { usage?: Usage; error?: { message?: string } }; error?: { message?: string } };
        if (streamed.type === 'response.output_text.delta' && typeof streamed.delta === 'string') setOutput((text) => text + streamed.delta);
        else if (streamed.type === 'response.completed' || streamed.type === 'response.incomplete') setUsage(streamed.response?.usage);
        else if (streamed.type === 'response.failed' || streamed.type === 'error') {
          throw new Error(streamed.response?.error?.message ?? streamed.error?.message ?? 'The response failed.');
        }
      });
      setStatus('done');
    } catch (failure) {
      if (controller.signal.aborted) setStatus('stopped');
      else {
        setError(failure);
        setStatus('idle');
      }
    }
  };

  return (
    <Page title="Playground">
      <form class="card form" aria-label="Send a prompt" onSubmit={send}>
        <Field label="Model">
          <select name="model" required>
            {(models.data ?? []).map((model) => <option key={model.name} value={model.name}>{model.displayName || idOf(model.name)}</option>)}
          </select>
        </Field>
        <Field label="Instructions" hint="optional"><input name="instructions" /></Field>
        <Field label="Prompt"><textarea name="input" required rows={4} /></Field>
        <Field label="Max output tokens"><input name="maxOutputTokens" type="number" min={1} defaultValue={64} /></Field>
        <div class="form-actions">
          <button type="submit" disabled={status === 'streaming'}>{status === 'streaming' ? 'Streaming…' : 'Send'}</button>
          {status === 'streaming' ? <button type="button" onClick={() => abort.current?.abort()}>Stop</button> : null}
        </div>
      </form>
      <ErrorNote error={error ?? models.error} />
      <section class="card" aria-labelledby="answer-title">
        <h2 id="answer-title">Answer</h2>
        <output class="answer" aria-live="polite" data-status={status}>{output}</output>
        <p class="sub" role="status">
          {status === 'streaming' ? 'Streaming…' : status === 'stopped' ? 'Stopped.' : ''}
          {status === 'done' && usage ? `Done: ${usage.input_tokens ?? '?'} tokens in, ${usage.output_tokens ?? '?'} tokens out.` : status === 'done' ? 'Done.' : ''}
        </p>
      </section>
    </Page>
  );
}
