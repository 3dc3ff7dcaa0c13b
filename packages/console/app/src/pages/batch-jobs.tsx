import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { isFinished, JobCard, type JobProgress } from '../jobs.tsx';
import { may } from '../permissions.ts';
import { Empty, ErrorNote, Field, Form, Page, useAction, usePoll } from '../ui.tsx';
import type { Model } from './models.tsx';

interface BatchJob {
  readonly name: string;
  readonly displayName?: string;
  readonly state?: string;
  readonly model?: string;
  readonly inputDatasetId?: string;
  readonly outputDatasetId?: string;
  readonly jobProgress?: JobProgress;
  readonly status?: { readonly message?: string };
}

export function BatchJobs({ api, session }: PageProps) {
  const jobs = usePoll(() => api.listAll<BatchJob>('batchInferenceJobs'), 1000);
  const models = usePoll(() => api.listAll<Model>('models'), 0);
  const datasets = usePoll(() => api.listAll<{ name: string; state?: string }>('datasets'), 0);
  const create = useAction();
  const action = useAction();
  const onCreate = (form: HTMLFormElement) =>
    create.run(async () => {
      const data = new FormData(form);
      const maxTokens = Number(data.get('maxTokens'));
      await api.call('POST', '/batchInferenceJobs', {
        query: { batchInferenceJobId: String(data.get('jobId')).trim() || undefined },
        body: {
          model: String(data.get('model')),
          inputDatasetId: String(data.get('inputDatasetId')),
          outputDatasetId: String(data.get('outputDatasetId')).trim() || undefined,
          ...(maxTokens > 0 ? { inferenceParameters: { maxTokens } } : {}),
        },
      });
      jobs.reload();
    });
  const act = (run: () => Promise<unknown>) => void action.run(async () => { await run(); jobs.reload(); });
  return (
    <Page title="Batch jobs">
      {may(session.role, 'batchInferenceJobs', 'create') ? (
        <details class="card-details">
          <summary>Start a batch job</summary>
          <Form label="Start a batch job" submit="Start" busy={create.busy} error={create.error} onSubmit={onCreate}>
            <Field label="Job id" hint="optional"><input name="jobId" pattern="[a-z0-9][a-z0-9-]*" maxLength={63} /></Field>
            <Field label="Model">
              <select name="model" required>{(models.data ?? []).map((model) => <option key={model.name} value={model.name}>{model.displayName || idOf(model.name)}</option>)}</select>
            </Field>
            <Field label="Input dataset">
              <select name="inputDatasetId" required>
                {(datasets.data ?? []).filter((dataset) => dataset.state === 'READY').map((dataset) => <option key={dataset.name} value={idOf(dataset.name)}>{idOf(dataset.name)}</option>)}
              </select>
            </Field>
            <Field label="Output dataset id" hint="optional"><input name="outputDatasetId" pattern="[a-z0-9][a-z0-9-]*" maxLength={63} /></Field>
            <Field label="Max tokens per answer"><input name="maxTokens" type="number" min={1} defaultValue={64} /></Field>
          </Form>
        </details>
      ) : null}
      <ErrorNote error={jobs.error ?? action.error} />
      {jobs.data === undefined ? <p aria-busy="true">Loading…</p> : jobs.data.length === 0 ? <Empty>No batch jobs.</Empty> : (
        <ul class="cards" aria-label="Batch jobs">
          {jobs.data.map((job) => {
            const id = idOf(job.name);
            const path = `/batchInferenceJobs/${encodeURIComponent(id)}`;
            return (
              <JobCard key={job.name} id={id} title={job.displayName || id} state={job.state} progress={job.jobProgress} actions={<>
                {!isFinished(job.state) && may(session.role, 'batchInferenceJobs', 'action') ? (
                  <button type="button" disabled={action.busy} onClick={() => act(() => api.call('POST', `${path}:cancel`, { body: {} }))}>Cancel</button>
                ) : null}
                {isFinished(job.state) && may(session.role, 'batchInferenceJobs', 'delete') ? (
                  <button type="button" class="danger" disabled={action.busy} onClick={() => {
                    if (confirm(`Delete job ${id}?`)) act(() => api.call('DELETE', path));
                  }}>Delete</button>
                ) : null}
              </>}>
                <p class="sub">
                  {job.model ? idOf(job.model) : ''} · {idOf(job.inputDatasetId ?? '')} → {idOf(job.outputDatasetId ?? '')}
                  {job.status?.message ? ` · ${job.status.message}` : ''}
                </p>
              </JobCard>
            );
          })}
        </ul>
      )}
    </Page>
  );
}
