import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { may } from '../permissions.ts';
import { Empty, ErrorNote, Field, Form, Page, useAction, usePoll } from '../ui.tsx';
import { acceleratorTypes } from './deployments.tsx';
import type { Model } from './models.tsx';

interface Shape {
  readonly name: string;
  readonly displayName?: string;
  readonly baseModel?: string;
  readonly acceleratorType?: string;
  readonly acceleratorCount?: number;
  readonly precision?: string;
  readonly presetType?: string;
}

const presets = ['PRESET_TYPE_UNSPECIFIED', 'MINIMAL', 'FAST', 'THROUGHPUT', 'FULL_PRECISION', 'AGENTIC_CODING', 'CHAT', 'SUMMARIZATION'];

export function Shapes({ api, session }: PageProps) {
  const shapes = usePoll(() => api.listAll<Shape>('deploymentShapes'), 10_000);
  const models = usePoll(() => api.listAll<Model>('models'), 0);
  const create = useAction();
  const remove = useAction();
  const onCreate = (form: HTMLFormElement) =>
    create.run(async () => {
      const data = new FormData(form);
      await api.call('POST', '/deploymentShapes', {
        query: { deploymentShapeId: String(data.get('shapeId')).trim() },
        body: { baseModel: String(data.get('baseModel')), presetType: String(data.get('presetType')), acceleratorType: String(data.get('acceleratorType')) },
      });
      shapes.reload();
    });
  return (
    <Page title="Deployment shapes">
      {may(session.role, 'deploymentShapes', 'create') ? (
        <details class="card-details">
          <summary>Create a shape</summary>
          <Form label="Create a deployment shape" submit="Create" busy={create.busy} error={create.error} onSubmit={onCreate}>
            <Field label="Shape id"><input name="shapeId" required pattern="[a-z0-9][a-z0-9-]*" maxLength={63} /></Field>
            <Field label="Base model">
              <select name="baseModel" required>
                {(models.data ?? []).map((model) => <option key={model.name} value={model.name}>{model.displayName || idOf(model.name)}</option>)}
              </select>
            </Field>
            <Field label="Preset"><select name="presetType">{presets.map((preset) => <option key={preset}>{preset}</option>)}</select></Field>
            <Field label="Accelerator type"><select name="acceleratorType">{acceleratorTypes.map((type) => <option key={type}>{type}</option>)}</select></Field>
          </Form>
        </details>
      ) : null}
      <ErrorNote error={shapes.error ?? remove.error} />
      {shapes.data === undefined ? <p aria-busy="true">Loading…</p> : shapes.data.length === 0 ? <Empty>No deployment shapes.</Empty> : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Deployment shapes</caption>
            <thead><tr><th scope="col">Shape</th><th scope="col">Base model</th><th scope="col">Accelerators</th><th scope="col">Precision</th><th scope="col">Preset</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {shapes.data.map((shape) => (
                <tr key={shape.name}>
                  <th scope="row">{shape.displayName || idOf(shape.name)}</th>
                  <td>{shape.baseModel ? idOf(shape.baseModel) : ''}</td>
                  <td>{shape.acceleratorCount} × {shape.acceleratorType}</td>
                  <td>{shape.precision}</td>
                  <td>{shape.presetType}</td>
                  <td>
                    {may(session.role, 'deploymentShapes', 'delete') ? (
                      <button type="button" class="danger small" disabled={remove.busy} aria-label={`Delete shape ${idOf(shape.name)}`} onClick={() => {
                        if (confirm(`Delete shape ${idOf(shape.name)}?`)) void remove.run(async () => { await api.call('DELETE', `/deploymentShapes/${encodeURIComponent(idOf(shape.name))}`); shapes.reload(); });
                      }}>Delete</button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
