import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, api } from './api/client.js';
import { signIn } from './api/auth.js';
import { Field } from './ui/controls.js';
import { ErrorNote } from './ui/status.js';

/**
 * Sign-in with the admin API key. The key is checked with one Admin API call before it is kept
 * (sessionStorage); a wrong key is reported as such.
 */
export function SignIn({ notice }: { notice: string | null }): JSX.Element {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api('/admin/v1/agents?limit=1', { key: key.trim() });
      signIn(key.trim());
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? new Error(`Wrong admin API key: the server refused it (${err.message}).`)
          : err,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Parley admin</h1>
      {notice !== null && (
        <p class="note" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)}>
        <Field
          label="Admin API key"
          help="The server's PARLEY_ADMIN_API_KEY. Kept in this tab's session storage only and sent as the X-API-Key header."
        >
          {({ id, describedBy }) => (
            <input
              id={id}
              name="admin-key"
              type="password"
              autocomplete="current-password"
              required
              value={key}
              aria-describedby={describedBy}
              onInput={(e) => setKey(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {error !== undefined && <ErrorNote error={error} prefix="Sign-in failed" />}
    </main>
  );
}
