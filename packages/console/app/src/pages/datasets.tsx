import { useState } from 'preact/hooks';
import { idOf } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { may } from '../permissions.ts';
import { uploadFile } from '../upload.ts';
import { CreatePanel, DataTable, DeleteResource, Empty, ErrorNote, Field, IdInput, Listing, Page, ProgressBar, StateBadge, formatTime, useAction, usePoll } from '../ui.tsx';

interface Dataset {
  readonly name: string;
  readonly displayName?: string;
  readonly state?: string;
  readonly exampleCount?: string;
  readonly format?: string;
  readonly createTime?: string;
  readonly sourceJobName?: string;
}

export function Datasets({ api, session }: PageProps) {
  const datasets = usePoll(() => api.listAll<Dataset>('datasets'), 5000);
  const upload = useAction();
  const remove = useAction();
  const [progress, setProgress] = useState<number | undefined>(undefined);
  const [downloads, setDownloads] = useState<{ dataset: string; files: [string, string][] } | undefined>(undefined);
  const download = useAction();

  const onUpload = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const file = data.get('file');
    if (!(file instanceof File) || file.size === 0) throw new Error('Choose a non-empty file.');
    const datasetId = String(data.get('datasetId')).trim();
    setProgress(0);
    await api.call('POST', '/datasets', { body: { datasetId, dataset: { displayName: String(data.get('displayName')).trim() || datasetId } } });
    await uploadFile(api.accountPath(`/datasets/${encodeURIComponent(datasetId)}:upload`), api.credentials.apiKey, file, setProgress);
    datasets.reload();
  };
  const showDownloads = (dataset: string) =>
    void download.run(async () => {
      const answer = await api.call<{ filenameToSignedUrls?: Record<string, string> }>('POST', `/datasets/${encodeURIComponent(dataset)}:getDownloadEndpoint`, { body: {} });
      setDownloads({ dataset, files: Object.entries(answer.filenameToSignedUrls ?? {}) });
    });

  return (
    <Page title="Datasets">
      {may(session.role, 'datasets', 'create') ? (
        <CreatePanel title="Upload a dataset" submit="Upload" action={upload} onSubmit={onUpload}>
          <Field label="Dataset id"><IdInput name="datasetId" required /></Field>
          <Field label="Display name"><input name="displayName" maxLength={63} /></Field>
          <Field label="File" hint="JSON lines (.jsonl)"><input name="file" type="file" required accept=".jsonl,.json,application/jsonl,application/json" /></Field>
          {progress !== undefined ? <ProgressBar percent={progress * 100} label="Upload progress" /> : null}
        </CreatePanel>
      ) : null}
      <ErrorNote error={datasets.error ?? remove.error ?? download.error} />
      {downloads ? (
        <div class="card" role="region" aria-label={`Files of ${downloads.dataset}`}>
          <h2>Files of {downloads.dataset}</h2>
          {downloads.files.length === 0 ? <Empty>No files.</Empty> : (
            <ul>{downloads.files.map(([file, url]) => <li key={file}><a href={url} download={file}>{file}</a></li>)}</ul>
          )}
          <button type="button" class="link-button" onClick={() => setDownloads(undefined)}>Close</button>
        </div>
      ) : null}
      <Listing items={datasets.data} empty="No datasets yet.">
        {(items) => (
          <DataTable caption="Datasets" columns={['Dataset', 'State', 'Rows', 'Created']} actions>
            {items.map((dataset) => {
              const id = idOf(dataset.name);
              return (
                <tr key={dataset.name}>
                  <th scope="row">{dataset.displayName || id}<div class="sub">{id}{dataset.sourceJobName ? ` · from ${idOf(dataset.sourceJobName)}` : ''}</div></th>
                  <td><StateBadge state={dataset.state} /></td>
                  <td>{dataset.exampleCount ?? ''}</td>
                  <td>{formatTime(dataset.createTime)}</td>
                  <td class="actions">
                    {dataset.state === 'READY' ? <button type="button" class="small" onClick={() => showDownloads(id)} aria-label={`Download ${id}`}>Download</button> : null}
                    <DeleteResource api={api} role={session.role} collection="datasets" noun="dataset" id={id} runner={remove} onDone={datasets.reload} />
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
