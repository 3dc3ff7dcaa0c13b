import type { ComponentChildren } from 'preact';
import { idOf, type Api } from './api.ts';
import { may, type Role } from './permissions.ts';
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

/** An input for a resource id (`[a-z0-9][a-z0-9-]*`, at most 63 characters), the rule every create form shares. */
export function IdInput(props: { name: string; required?: boolean; defaultValue?: string }) {
  return <input name={props.name} required={props.required} pattern="[a-z0-9][a-z0-9-]*" maxLength={63} defaultValue={props.defaultValue} />;
}

/** A `<select>` of fixed `values` (each its own label); `selected` is chosen first. */
export function Select(props: { name: string; values: readonly string[]; selected?: string }) {
  return <select name={props.name}>{props.values.map((value) => <option key={value} selected={value === props.selected}>{value}</option>)}</select>;
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

/** A collapsed "create" panel: a summary that opens a {@link Form} whose submit runs `onSubmit` through `action`. */
export function CreatePanel(props: {
  title: string;
  submit: string;
  action: ReturnType<typeof useAction>;
  onSubmit: (form: HTMLFormElement) => Promise<unknown>;
  children: ComponentChildren;
}) {
  return (
    <details class="card-details">
      <summary>{props.title}</summary>
      <Form label={props.title} submit={props.submit} busy={props.action.busy} error={props.action.error} onSubmit={(form) => props.action.run(() => props.onSubmit(form))}>
        {props.children}
      </Form>
    </details>
  );
}

/** A list while it loads, when it is empty, and otherwise as `children` renders it. */
export function Listing<T>(props: { items: readonly T[] | undefined; empty: string; children: (items: readonly T[]) => ComponentChildren }) {
  if (props.items === undefined) return <p aria-busy="true">Loading…</p>;
  if (props.items.length === 0) return <Empty>{props.empty}</Empty>;
  return <>{props.children(props.items)}</>;
}

/** A table with a caption for screen readers and column headers; the last column may be unnamed actions. */
export function DataTable(props: { caption: string; columns: readonly string[]; actions?: boolean; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => <th key={column} scope="col">{column}</th>)}
            {props.actions ? <th scope="col"><span class="visually-hidden">Actions</span></th> : null}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** A destructive button that asks first (`question`), then runs `action` through `runner`. */
export function ConfirmButton(props: { label: string; question: string; runner: ReturnType<typeof useAction>; action: () => Promise<unknown>; children: ComponentChildren; small?: boolean }) {
  return (
    <button type="button" class={props.small ? 'danger small' : 'danger'} disabled={props.runner.busy} aria-label={props.label} onClick={() => {
      if (confirm(props.question)) void props.runner.run(props.action);
    }}>{props.children}</button>
  );
}

/** A button that POSTs the custom method `<path>:<verb>` (empty body) through `runner`, then calls `onDone`. */
export function MethodButton(props: { api: Api; path: string; verb: string; runner: ReturnType<typeof useAction>; onDone: () => void; children: ComponentChildren }) {
  const { api, path, verb, runner, onDone } = props;
  return (
    <button type="button" disabled={runner.busy} onClick={() => void runner.run(async () => { await api.call('POST', `${path}:${verb}`, { body: {} }); onDone(); })}>{props.children}</button>
  );
}

/** `<option>`s for resources: the value is the name, the text its display name or id. */
export function NameOptions(props: { items: readonly { name: string; displayName?: string }[] | undefined; value?: (name: string) => string }) {
  return <>{(props.items ?? []).map((item) => <option key={item.name} value={props.value ? props.value(item.name) : item.name}>{item.displayName || idOf(item.name)}</option>)}</>;
}

/** "Delete" for a resource of `collection` (shown when the role may delete there): asks, deletes, then `onDone`. */
export function DeleteResource(props: { api: Api; role: Role; collection: string; noun: string; id: string; runner: ReturnType<typeof useAction>; onDone: () => void; question?: string; small?: boolean }) {
  if (!may(props.role, props.collection, 'delete')) return null;
  const { api, collection, id } = props;
  return (
    <ConfirmButton small={props.small ?? true} label={`Delete ${props.noun} ${id}`} question={props.question ?? `Delete ${props.noun} ${id}?`} runner={props.runner}
      action={async () => { await api.call('DELETE', `/${collection}/${encodeURIComponent(id)}`); props.onDone(); }}>Delete</ConfirmButton>
  );
}
