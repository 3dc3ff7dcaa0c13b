import { useState } from 'preact/hooks';
import { idOf, type Api } from '../api.ts';
import type { PageProps } from '../app.tsx';
import { may, type Role } from '../permissions.ts';
import type { Session } from '../session.ts';
import { ConfirmButton, CreatePanel, DataTable, DeleteResource, ErrorNote, Field, Form, IdInput, Listing, Page, Select, formatTime, useAction, usePoll } from '../ui.tsx';

interface User {
  readonly name: string;
  readonly displayName?: string;
  readonly role?: string;
  readonly email?: string;
  readonly serviceAccount?: boolean;
}

interface ApiKey {
  readonly keyId: string;
  readonly displayName?: string;
  readonly prefix?: string;
  readonly key?: string;
  readonly createTime?: string;
  readonly expireTime?: string;
}

const roles: Role[] = ['admin', 'user', 'contributor', 'inference-user'];

export function Users({ api, session }: PageProps) {
  const users = usePoll(() => api.listAll<User>('users'), 10_000);
  const [selected, setSelected] = useState<string | undefined>(session.userName);
  const create = useAction();
  const remove = useAction();
  const onCreate = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const email = String(data.get('email')).trim();
    await api.call('POST', '/users', {
      query: { userId: String(data.get('userId')).trim() },
      body: { role: String(data.get('role')), displayName: String(data.get('displayName')).trim() || undefined, ...(email ? { email } : {}) },
    });
    users.reload();
  };
  const mayManageKeys = (user: string) => may(session.role, 'apiKeys', 'list', user === session.userName);
  return (
    <Page title="Users and API keys">
      {may(session.role, 'users', 'create') ? (
        <CreatePanel title="Add a user" submit="Add" action={create} onSubmit={onCreate}>
          <Field label="User id"><IdInput name="userId" required /></Field>
          <Field label="Role"><Select name="role" values={roles} selected="user" /></Field>
          <Field label="Display name"><input name="displayName" maxLength={63} /></Field>
          <Field label="E-mail"><input name="email" type="email" /></Field>
        </CreatePanel>
      ) : null}
      <ErrorNote error={users.error ?? remove.error} />
      <Listing items={users.data} empty="No users.">
        {(items) => (
          <DataTable caption="Users of the account" columns={['User', 'Role', 'E-mail']} actions>
            {items.map((user) => {
                const id = idOf(user.name);
                return (
                  <tr key={user.name} aria-selected={user.name === selected}>
                    <th scope="row">{user.displayName || id}{user.name === session.userName ? ' (you)' : ''}<div class="sub">{id}</div></th>
                    <td>{user.role}</td>
                    <td>{user.email}</td>
                    <td class="actions">
                      {mayManageKeys(user.name) ? <button type="button" class="small" aria-label={`API keys of ${id}`} onClick={() => setSelected(user.name)}>API keys</button> : null}
                      {user.name !== session.userName ? (
                        <DeleteResource api={api} role={session.role} collection="users" noun="user" id={id} runner={remove} onDone={users.reload}
                          question={`Delete user ${id} and their API keys?`} />
                      ) : null}
                    </td>
                  </tr>
                );
            })}
          </DataTable>
        )}
      </Listing>
      {selected && mayManageKeys(selected) ? <ApiKeys key={selected} api={api} session={session} user={selected} /> : null}
    </Page>
  );
}

function ApiKeys({ api, session, user }: { api: Api; session: Session; user: string }) {
  const own = user === session.userName;
  const base = `/users/${encodeURIComponent(idOf(user))}/apiKeys`;
  const keys = usePoll(() => api.listAll<ApiKey>(base.slice(1)), 0, [user]);
  const create = useAction();
  const revoke = useAction();
  const [secret, setSecret] = useState<ApiKey | undefined>(undefined);
  const onCreate = (form: HTMLFormElement) =>
    create.run(async () => {
      const data = new FormData(form);
      const expires = String(data.get('expireTime'));
      const created = await api.call<ApiKey>('POST', base, {
        body: { apiKey: { displayName: String(data.get('displayName')).trim() || undefined, ...(expires ? { expireTime: new Date(expires).toISOString() } : {}) } },
      });
      setSecret(created);
      keys.reload();
    });
  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys of {idOf(user)}</h2>
      {secret?.key ? (
        <div class="secret" role="status">
          <p><strong>Copy the new key now: it is not shown again.</strong></p>
          <label class="field">
            <span class="field-label">New key {secret.displayName ? `“${secret.displayName}”` : ''}</span>
            <input readOnly value={secret.key} data-testid="new-key" onFocus={(event) => event.currentTarget.select()} />
          </label>
          <button type="button" class="small" onClick={() => void navigator.clipboard?.writeText(secret.key ?? '')}>Copy</button>{' '}
          <button type="button" class="small link-button" onClick={() => setSecret(undefined)}>Done</button>
        </div>
      ) : null}
      {may(session.role, 'apiKeys', 'create', own) ? (
        <Form label="Create an API key" submit="Create key" busy={create.busy} error={create.error} onSubmit={onCreate}>
          <Field label="Key name"><input name="displayName" maxLength={63} /></Field>
          <Field label="Expires" hint="optional"><input name="expireTime" type="datetime-local" /></Field>
        </Form>
      ) : null}
      <ErrorNote error={keys.error ?? revoke.error} />
      <Listing items={keys.data} empty="No API keys.">
        {(items) => (
          <DataTable caption={`API keys of ${idOf(user)}`} columns={['Key', 'Starts with', 'Created', 'Expires']} actions>
            {items.map((key) => (
                <tr key={key.keyId}>
                  <th scope="row">{key.displayName || key.keyId}</th>
                  <td><code>{key.prefix}…</code></td>
                  <td>{formatTime(key.createTime)}</td>
                  <td>{formatTime(key.expireTime) || 'never'}</td>
                  <td>
                    {may(session.role, 'apiKeys', 'delete', own) ? (
                      <ConfirmButton small label={`Revoke key ${key.displayName || key.keyId}`} question={`Revoke key ${key.displayName || key.keyId}? Calls with it fail from now on.`}
                        runner={revoke} action={async () => { await api.call('DELETE', `${base}/${encodeURIComponent(key.keyId)}`); keys.reload(); }}>Revoke</ConfirmButton>
                    ) : null}
                  </td>
                </tr>
            ))}
          </DataTable>
        )}
      </Listing>
    </section>
  );
}
