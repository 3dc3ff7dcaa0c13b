import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { RewardChart } from '../chart.tsx';
import { isFinished, JobCard, type JobProgress } from '../jobs.tsx';
import { rewardCurves } from '../metrics.ts';
import { may } from '../permissions.ts';
import { CreatePanel, ErrorNote, Field, IdInput, Listing, MethodButton, NameOptions, Page, useAction, usePoll } from '../ui.tsx';
import type { Model } from './models.tsx';

interface FineTuningJob {
  readonly name: string;
  readonly displayName?: string;
  readonly state?: string;
  readonly dataset?: string;
  readonly evaluator?: string;
  readonly trainingConfig?: { readonly baseModel?: string; readonly outputModel?: string; readonly epochs?: number };
  readonly jobProgress?: JobProgress;
  readonly outputMetrics?: string;
  readonly status?: { readonly message?: string };
}

/** Jobs that may be resumed (a paused, cancelled or failed job continues from its last checkpoint). */
const resumable = new Set(['JOB_STATE_PAUSED', 'JOB_STATE_CANCELLED', 'JOB_STATE_FAILED']);

export function FineTuningJobs({ api, session }: PageProps) {
  const jobs = usePoll(() => api.listAll<FineTuningJob>('reinforcementFineTuningJobs'), 2000);
  const models = usePoll(() => api.listAll<Model>('models'), 0);
  const datasets = usePoll(() => api.listAll<{ name: string }>('datasets'), 0);
  const evaluators = usePoll(() => api.listAll<{ name: string; displayName?: string }>('evaluators'), 0);
  const create = useAction();
  const action = useAction();
  const onCreate = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const outputModel = String(data.get('outputModel')).trim();
    const epochs = Number(data.get('epochs'));
    await api.call('POST', '/reinforcementFineTuningJobs', {
      query: { reinforcementFineTuningJobId: String(data.get('jobId')).trim() || undefined },
      body: {
        dataset: String(data.get('dataset')),
        evaluator: String(data.get('evaluator')),
        trainingConfig: {
          baseModel: String(data.get('baseModel')),
          ...(outputModel ? { outputModel: `${api.resourcePrefix}models/${outputModel}` } : {}),
          ...(epochs > 0 ? { epochs } : {}),
        },
      },
    });
    jobs.reload();
  };
  return (
    <Page title="Fine-tuning jobs">
      {may(session.role, 'reinforcementFineTuningJobs', 'create') ? (
        <CreatePanel title="Start a reinforcement fine-tuning job" submit="Start" action={create} onSubmit={onCreate}>
          <Field label="Job id" hint="optional"><IdInput name="jobId" /></Field>
          <Field label="Base model"><select name="baseModel" required><NameOptions items={models.data} /></select></Field>
          <Field label="Training dataset"><select name="dataset" required><NameOptions items={datasets.data} /></select></Field>
          <Field label="Evaluator"><select name="evaluator" required><NameOptions items={evaluators.data} /></select></Field>
          <Field label="Output model id" hint="optional"><IdInput name="outputModel" /></Field>
          <Field label="Epochs"><input name="epochs" type="number" min={1} defaultValue={1} /></Field>
        </CreatePanel>
      ) : null}
      <ErrorNote error={jobs.error ?? action.error} />
      <Listing items={jobs.data} empty="No fine-tuning jobs.">
        {(items) => (
          <ul class="cards" aria-label="Fine-tuning jobs">
            {items.map((job) => {
              const id = idOf(job.name);
              const path = `/reinforcementFineTuningJobs/${encodeURIComponent(id)}`;
              const curves = rewardCurves(job.outputMetrics);
              const mayAct = may(session.role, 'reinforcementFineTuningJobs', 'action');
              return (
                <JobCard key={job.name} id={id} title={job.displayName || id} state={job.state} progress={job.jobProgress} actions={<>
                  {!isFinished(job.state) && mayAct ? <MethodButton api={api} path={path} verb="cancel" runner={action} onDone={jobs.reload}>Cancel</MethodButton> : null}
                  {resumable.has(job.state ?? '') && mayAct ? <MethodButton api={api} path={path} verb="resume" runner={action} onDone={jobs.reload}>Resume</MethodButton> : null}
                </>}>
                  <p class="sub">
                    {job.trainingConfig?.baseModel ? idOf(job.trainingConfig.baseModel) : ''}
                    {job.trainingConfig?.outputModel ? ` → ${idOf(job.trainingConfig.outputModel)}` : ''}
                    {job.status?.message ? ` · ${job.status.message}` : ''}
                  </p>
                  {curves ? <RewardChart curves={curves} title={`Reward of ${job.displayName || id} by ${curves.axis}`} /> : null}
                  {curves?.summary ? <p class="sub">{curves.summary}</p> : null}
                  {!curves && job.outputMetrics ? <pre class="metrics">{job.outputMetrics}</pre> : null}
                </JobCard>
              );
            })}
          </ul>
        )}
      </Listing>
    </Page>
  );
}
