import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { isFinished, JobCard, type JobProgress } from '../jobs.tsx';
import { may } from '../permissions.ts';
import { CreatePanel, DeleteResource, ErrorNote, Field, IdInput, Listing, MethodButton, NameOptions, Page, useAction, usePoll } from '../ui.tsx';
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
  const onCreate = async (form: HTMLFormElement) => {
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
  };
  return (
    <Page title="Batch jobs">
      {may(session.role, 'batchInferenceJobs', 'create') ? (
        <CreatePanel title="Start a batch job" submit="Start" action={create} onSubmit={onCreate}>
          <Field label="Job id" hint="optional"><IdInput name="jobId" /></Field>
          <Field label="Model"><select name="model" required><NameOptions items={models.data} /></select></Field>
          <Field label="Input dataset">
            <select name="inputDatasetId" required><NameOptions items={datasets.data?.filter((dataset) => dataset.state === 'READY')} value={idOf} /></select>
          </Field>
          <Field label="Output dataset id" hint="optional"><IdInput name="outputDatasetId" /></Field>
          <Field label="Max tokens per answer"><input name="maxTokens" type="number" min={1} defaultValue={64} /></Field>
        </CreatePanel>
      ) : null}
      <ErrorNote error={jobs.error ?? action.error} />
      <Listing items={jobs.data} empty="No batch jobs.">
        {(items) => (
          <ul class="cards" aria-label="Batch jobs">
            {items.map((job) => {
              const id = idOf(job.name);
              const path = `/batchInferenceJobs/${encodeURIComponent(id)}`;
              return (
                <JobCard key={job.name} id={id} title={job.displayName || id} state={job.state} progress={job.jobProgress} actions={<>
                  {!isFinished(job.state) && may(session.role, 'batchInferenceJobs', 'action') ? (
                    <MethodButton api={api} path={path} verb="cancel" runner={action} onDone={jobs.reload}>Cancel</MethodButton>
                  ) : null}
                  {isFinished(job.state) ? (
                    <DeleteResource api={api} role={session.role} collection="batchInferenceJobs" noun="job" id={id} runner={action} onDone={jobs.reload} small={false} />
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
      </Listing>
    </Page>
  );
}
