import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { may } from '../permissions.ts';
import { CreatePanel, DataTable, DeleteResource, ErrorNote, Field, IdInput, Listing, NameOptions, Page, Select, useAction, usePoll } from '../ui.tsx';
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
  const onCreate = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    await api.call('POST', '/deploymentShapes', {
      query: { deploymentShapeId: String(data.get('shapeId')).trim() },
      body: { baseModel: String(data.get('baseModel')), presetType: String(data.get('presetType')), acceleratorType: String(data.get('acceleratorType')) },
    });
    shapes.reload();
  };
  return (
    <Page title="Deployment shapes">
      {may(session.role, 'deploymentShapes', 'create') ? (
        <CreatePanel title="Create a deployment shape" submit="Create" action={create} onSubmit={onCreate}>
          <Field label="Shape id"><IdInput name="shapeId" required /></Field>
          <Field label="Base model"><select name="baseModel" required><NameOptions items={models.data} /></select></Field>
          <Field label="Preset"><Select name="presetType" values={presets} /></Field>
          <Field label="Accelerator type"><Select name="acceleratorType" values={acceleratorTypes} /></Field>
        </CreatePanel>
      ) : null}
      <ErrorNote error={shapes.error ?? remove.error} />
      <Listing items={shapes.data} empty="No deployment shapes.">
        {(items) => (
          <DataTable caption="Deployment shapes" columns={['Shape', 'Base model', 'Accelerators', 'Precision', 'Preset']} actions>
            {items.map((shape) => {
              const id = idOf(shape.name);
              return (
                <tr key={shape.name}>
                  <th scope="row">{shape.displayName || id}</th>
                  <td>{shape.baseModel ? idOf(shape.baseModel) : ''}</td>
                  <td>{shape.acceleratorCount} × {shape.acceleratorType}</td>
                  <td>{shape.precision}</td>
                  <td>{shape.presetType}</td>
                  <td>
                    <DeleteResource api={api} role={session.role} collection="deploymentShapes" noun="shape" id={id} runner={remove} onDone={shapes.reload} />
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </Listing>
    </Page>
  );
}
