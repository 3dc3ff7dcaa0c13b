import { useState } from 'preact/hooks';
import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { may } from '../permissions.ts';
import { ConfirmButton, ErrorNote, Listing, MethodButton, Page, StateBadge, useAction, usePoll } from '../ui.tsx';

export const acceleratorTypes = [
  'GPUX_A100_80GB', 'GPUX_H100_80GB', 'GPUX_H200_141GB', 'GPUX_B200_180GB', 'GPUX_A100_40GB', 'GPUX_A10G_24GB', 'GPUX_L4_24GB',
  'GPUY_MI300X_192GB', 'GPUY_MI325X_256GB', 'GPUY_MI350X_288GB',
];

interface Deployment {
  readonly name: string;
  readonly displayName?: string;
  readonly state?: string;
  readonly baseModel?: string;
  readonly acceleratorType?: string;
  readonly acceleratorCount?: number;
  readonly minReplicaCount?: number;
  readonly maxReplicaCount?: number;
  readonly replicaCount?: number;
  readonly desiredReplicaCount?: number;
  readonly replicaStats?: { readonly readyReplicaCount?: number };
  readonly status?: { readonly message?: string };
}

export function Deployments({ api, session }: PageProps) {
  const [showDeleted, setShowDeleted] = useState(false);
  const deployments = usePoll(() => api.listAll<Deployment>('deployments', { showDeleted }), 2000, [showDeleted]);
  return (
    <Page title="Deployments">
      <label class="inline">
        <input type="checkbox" checked={showDeleted} onChange={(event) => setShowDeleted(event.currentTarget.checked)} /> Show deleted deployments
      </label>
      <ErrorNote error={deployments.error} />
      <Listing items={deployments.data} empty="No deployments. Deploy a model from its page.">
        {(items) => (
          <ul class="cards" aria-label="Deployments">
            {items.map((deployment) => (
              <DeploymentCard key={deployment.name} deployment={deployment} api={api} session={session} rest="" onChange={deployments.reload} />
            ))}
          </ul>
        )}
      </Listing>
    </Page>
  );
}

function DeploymentCard({ deployment, api, session, onChange }: PageProps & { deployment: Deployment; onChange: () => void }) {
  const id = idOf(deployment.name);
  const action = useAction();
  const [replicas, setReplicas] = useState(String(deployment.desiredReplicaCount ?? deployment.replicaCount ?? 0));
  const deleted = deployment.state === 'DELETED';
  const path = `/deployments/${encodeURIComponent(id)}`;
  const title = deployment.displayName || id;
  return (
    <li class="card" aria-label={`Deployment ${title}`}>
      <div class="card-title">
        <h2>{title}</h2> <StateBadge state={deployment.state} />
      </div>
      <dl class="facts">
        <dt>Model</dt><dd>{deployment.baseModel ? idOf(deployment.baseModel) : '—'}</dd>
        <dt>Accelerators</dt><dd>{deployment.acceleratorCount ?? '?'} × {deployment.acceleratorType}</dd>
        <dt>Replicas</dt>
        <dd>
          <span data-testid="replicas">{deployment.replicaStats?.readyReplicaCount ?? 0} ready of {deployment.replicaCount ?? 0}</span>
          {' '}(target {deployment.desiredReplicaCount ?? '—'}, {deployment.minReplicaCount ?? 0}–{deployment.maxReplicaCount ?? 1})
        </dd>
        {deployment.status?.message ? <><dt>Status</dt><dd>{deployment.status.message}</dd></> : null}
      </dl>
      <div class="row-actions">
        {!deleted && may(session.role, 'deployments', 'update') ? (
          <form class="inline" aria-label={`Scale ${title}`} onSubmit={(event) => {
            event.preventDefault();
            void action.run(async () => { await api.call('PATCH', `${path}:scale`, { body: { replicaCount: Number(replicas) } }); onChange(); });
          }}>
            <label>Replicas <input type="number" min={0} max={deployment.maxReplicaCount ?? 100} value={replicas} onInput={(event) => setReplicas(event.currentTarget.value)} /></label>
            <button type="submit" disabled={action.busy}>Scale</button>
          </form>
        ) : null}
        {!deleted && may(session.role, 'deployments', 'delete') ? (
          <ConfirmButton label={`Delete deployment ${id}`} question={`Delete deployment ${id}? It can be restored until it is purged.`} runner={action}
            action={async () => { await api.call('DELETE', path, { query: { ignoreChecks: true } }); onChange(); }}>Delete</ConfirmButton>
        ) : null}
        {deleted && may(session.role, 'deployments', 'action') ? (
          <MethodButton api={api} path={path} verb="undelete" runner={action} onDone={onChange}>Undelete</MethodButton>
        ) : null}
      </div>
      <ErrorNote error={action.error} />
    </li>
  );
}
