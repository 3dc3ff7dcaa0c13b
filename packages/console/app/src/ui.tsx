import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** Loads data, then again every `intervalMs` (0: once) and on `reload()`; stops when the component goes. */
export function usePoll<T>(load: () => Promise<T>, intervalMs: number, deps: readonly unknown[] = []) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const value = await loadRef.current();
        if (!live) return;
        setData(value);
        setError(undefined);
      } catch (failure) {
        if (live) setError(failure);
      }
      if (live && intervalMs > 0) timer = setTimeout(run, intervalMs);
    };
    void run();
    return () => {
      live = false;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [tick, intervalMs, ...deps]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, reload };
}

/** Runs an async action once at a time; keeps its failure to show. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, busy, error };
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const message = error instanceof Error ? error.message : String(error);
  return <p class="error" role="alert">{message}</p>;
}

export function Field(props: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span class="field-label">{props.label}</span>
      {props.children}
      {props.hint ? <span class="hint">{props.hint}</span> : null}
    </label>
  );
}

/** A labelled progress bar with its percentage as text. */
export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  const value = Math.max(0, Math.min(100, Math.round(percent)));
  return (
    <span class="progress">
      <progress max={100} value={value} aria-label={label} />
      <span class="progress-text">{value}%</span>
    </span>
  );
}

export function Page(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section aria-labelledby="page-title" class="page">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1}>{props.title}</h1>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** A form whose submit runs `onSubmit` (the browser's own validation first); fields stay put on failure. */
export function Form(props: { label: string; onSubmit: (form: HTMLFormElement) => Promise<boolean>; children: ComponentChildren; submit: string; busy: boolean; error: unknown }) {
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void props.onSubmit(form).then((ok) => {
      if (ok) form.reset();
    });
  };
  return (
    <form class="card form" aria-label={props.label} onSubmit={onSubmit}>
      {props.children}
      <div class="form-actions">
        <button type="submit" disabled={props.busy}>{props.busy ? 'Working…' : props.submit}</button>
      </div>
      <ErrorNote error={props.error} />
    </form>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function formatTime(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/** `JOB_STATE_RUNNING` → `running`, `READY` → `ready`. */
export function stateLabel(state: unknown): string {
  return typeof state === 'string' ? state.replace(/^JOB_STATE_/, '').replace(/_/g, ' ').toLowerCase() : '';
}

export function StateBadge({ state }: { state: unknown }) {
  const label = stateLabel(state);
  return <span class={`badge badge-${label.replace(/ /g, '-')}`}>{label || 'unknown'}</span>;
}
