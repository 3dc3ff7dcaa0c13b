import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { may } from '../permissions.ts';
import { Link, navigate } from '../router.tsx';
import { ConfirmButton, CreatePanel, DataTable, Empty, ErrorNote, Field, Form, IdInput, Listing, Page, Select, StateBadge, formatTime, useAction, usePoll } from '../ui.tsx';
import { acceleratorTypes } from './deployments.tsx';

interface DeployedModelRef {
  readonly name: string;
  readonly deployment?: string;
  readonly state?: string;
  readonly default?: boolean;
}

export interface Model {
  readonly name: string;
  readonly displayName?: string;
  readonly kind?: string;
  readonly state?: string;
  readonly createTime?: string;
  readonly contextLength?: number;
  readonly deployedModelRefs?: readonly DeployedModelRef[];
}

const kinds = ['HUB_BASE_MODEL', 'HUB_PEFT_ADDON', 'DRAFT_ADDON', 'EMBEDDING_MODEL', 'CUSTOM_MODEL'];

export function Models(props: PageProps) {
  return props.rest === '' ? <ModelList {...props} /> : <ModelDetail {...props} id={props.rest} />;
}

function ModelList({ api, session }: PageProps) {
  const models = usePoll(() => api.listAll<Model>('models'), 5000);
  const create = useAction();
  const onCreate = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const kind = String(data.get('kind'));
    const parameterCount = String(data.get('parameterCount') ?? '').trim();
    const model: Record<string, unknown> = { kind, displayName: String(data.get('displayName')).trim() || undefined };
    const contextLength = Number(data.get('contextLength'));
    if (contextLength > 0) model.contextLength = contextLength;
    if (kind === 'HUB_BASE_MODEL') {
      model.baseModelDetails = { checkpointFormat: 'HUB', hubFiles: ['model.safetensors'], ...(parameterCount ? { parameterCount } : {}) };
    }
    await api.call('POST', '/models', { body: { modelId: String(data.get('modelId')).trim(), model } });
    models.reload();
  };
  return (
    <Page title="Models">
      {may(session.role, 'models', 'create') ? (
        <CreatePanel title="Register a model" submit="Register" action={create} onSubmit={onCreate}>
          <Field label="Model id"><IdInput name="modelId" required /></Field>
          <Field label="Display name"><input name="displayName" maxLength={63} /></Field>
          <Field label="Kind">
            <Select name="kind" values={kinds} />
          </Field>
          <Field label="Parameter count" hint="base models: sizes the deployment"><input name="parameterCount" inputMode="numeric" pattern="[0-9]*" defaultValue="8000000000" /></Field>
          <Field label="Context length"><input name="contextLength" type="number" min={1} defaultValue={8192} /></Field>
        </CreatePanel>
      ) : null}
      <ErrorNote error={models.error} />
      <Listing items={models.data} empty="No models yet.">
        {(items) => (
          <DataTable caption="Models of the account" columns={['Model', 'Kind', 'State', 'Created']}>
            {items.map((model) => (
              <tr key={model.name}>
                <th scope="row"><Link to={`models/${idOf(model.name)}`}>{model.displayName || idOf(model.name)}</Link><div class="sub">{idOf(model.name)}</div></th>
                <td>{model.kind}</td>
                <td><StateBadge state={model.state} /></td>
                <td>{formatTime(model.createTime)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </Listing>
    </Page>
  );
}

function ModelDetail({ api, session, id }: PageProps & { id: string }) {
  const model = usePoll(() => api.call<Model>('GET', `/models/${encodeURIComponent(id)}`), 3000, [id]);
  const deploy = useAction();
  const remove = useAction();
  const name = `${api.resourcePrefix}models/${id}`;
  const onDeploy = (form: HTMLFormElement) =>
    deploy.run(async () => {
      const data = new FormData(form);
      const deploymentId = String(data.get('deploymentId')).trim();
      await api.call('POST', '/deployments', {
        query: { deploymentId },
        body: {
          baseModel: name,
          displayName: deploymentId,
          acceleratorType: String(data.get('acceleratorType')),
          minReplicaCount: Number(data.get('minReplicaCount')),
          maxReplicaCount: Math.max(Number(data.get('maxReplicaCount')), Number(data.get('minReplicaCount')), 1),
        },
      });
      model.reload();
    });
  const refs = model.data?.deployedModelRefs ?? [];
  return (
    <Page title={model.data?.displayName || id} actions={<Link to="models" class="back">All models</Link>}>
      <ErrorNote error={model.error} />
      {model.data ? (
        <dl class="facts card">
          <dt>Name</dt><dd><code>{model.data.name}</code></dd>
          <dt>Kind</dt><dd>{model.data.kind}</dd>
          <dt>State</dt><dd><StateBadge state={model.data.state} /></dd>
          <dt>Context length</dt><dd>{model.data.contextLength ?? '—'}</dd>
        </dl>
      ) : null}
      <h2>Deployed on</h2>
      {refs.length === 0 ? <Empty>Not deployed.</Empty> : (
        <ul class="refs" aria-label="Deployed model references">
          {refs.map((ref) => (
            <li key={ref.name}>
              <Link to="deployments">{ref.deployment ? idOf(ref.deployment) : idOf(ref.name)}</Link> <StateBadge state={ref.state} />
              {ref.default ? <span class="badge">default</span> : null}
            </li>
          ))}
        </ul>
      )}
      {may(session.role, 'deployments', 'create') ? (
        <>
          <h2>Deploy</h2>
          <Form label="Deploy this model" submit="Deploy" busy={deploy.busy} error={deploy.error} onSubmit={onDeploy}>
            <Field label="Deployment id"><IdInput name="deploymentId" required defaultValue={`${id}-1`} /></Field>
            <Field label="Accelerator type">
              <Select name="acceleratorType" values={acceleratorTypes} />
            </Field>
            <Field label="Min replicas"><input name="minReplicaCount" type="number" min={0} max={100} defaultValue={1} /></Field>
            <Field label="Max replicas"><input name="maxReplicaCount" type="number" min={1} max={100} defaultValue={2} /></Field>
          </Form>
        </>
      ) : null}
      {may(session.role, 'models', 'delete') ? (
        <p>
          <ConfirmButton label={`Delete model ${id}`} question={`Delete model ${id}?`} runner={remove}
            action={async () => { await api.call('DELETE', `/models/${encodeURIComponent(id)}`); navigate('models'); }}>Delete model</ConfirmButton>
          <ErrorNote error={remove.error} />
        </p>
      ) : null}
    </Page>
  );
}
