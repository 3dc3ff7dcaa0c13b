import { useState } from 'preact/hooks';
import { signIn, type Session } from '../session.ts';
import { ErrorNote, Field } from '../ui.tsx';

/** Sign in with an account id and an API key; the key stays in this tab's sessionStorage only. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signIn({ accountId: String(form.get('accountId')).trim(), apiKey: String(form.get('apiKey')).trim() }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="sign-in card" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p>Use an API key of this gateway. It is kept in this browser tab only and sent to the gateway's API.</p>
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="Account">
          <input name="accountId" required autoComplete="username" defaultValue="my-account" />
        </Field>
        <Field label="API key">
          <input name="apiKey" type="password" required autoComplete="current-password" />
        </Field>
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
        <ErrorNote error={error} />
      </form>
    </section>
  );
}
