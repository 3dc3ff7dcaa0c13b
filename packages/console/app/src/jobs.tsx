import type { ComponentChildren } from 'preact';
import { ProgressBar, StateBadge } from './ui.tsx';

export interface JobProgress {
  readonly percent?: number;
  readonly epoch?: number;
  readonly totalInputRequests?: number;
  readonly totalProcessedRequests?: number;
  readonly successfullyProcessedRequests?: number;
  readonly failedRequests?: number;
  readonly outputRows?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

const finished = new Set(['JOB_STATE_COMPLETED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED', 'JOB_STATE_EARLY_STOPPED', 'JOB_STATE_DELETING']);

/** Whether a job has stopped for good (no more progress to poll for). */
export function isFinished(state: string | undefined): boolean {
  return state !== undefined && finished.has(state);
}

/** A job's card: title, state, a live progress bar and the counters under it. */
export function JobCard(props: { id: string; title: string; state?: string; progress?: JobProgress; children?: ComponentChildren; actions?: ComponentChildren }) {
  const progress = props.progress ?? {};
  return (
    <li class="card" aria-label={`Job ${props.title}`} data-job={props.id}>
      <div class="card-title">
        <h2>{props.title}</h2> <StateBadge state={props.state} />
      </div>
      <ProgressBar percent={progress.percent ?? 0} label={`Progress of ${props.title}`} />
      <p class="counters">
        {progress.totalProcessedRequests ?? 0} of {progress.totalInputRequests ?? 0} requests processed
        {progress.failedRequests ? `, ${progress.failedRequests} failed` : ''}
        {progress.epoch ? ` · epoch ${progress.epoch}` : ''}
        {progress.outputTokens ? ` · ${progress.outputTokens} tokens out` : ''}
      </p>
      {props.children}
      {props.actions ? <div class="row-actions">{props.actions}</div> : null}
    </li>
  );
}
