import { useState, type FormEvent } from 'react';
import { readClaims, TokenFormatError, type Session } from '../lib/session.js';

/** Paste a bearer token (JWT); it stays in this tab's sessionStorage only. */
export function SignIn({ onSignIn }: { onSignIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    try {
      const trimmed = token.trim().replace(/^Bearer\s+/i, '');
      onSignIn({ token: trimmed, claims: readClaims(trimmed) });
    } catch (err) {
      setError(err instanceof TokenFormatError ? err.message : 'The token could not be read.');
    }
  };
  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the console</h1>
      <form onSubmit={submit}>
        <label htmlFor="token">Bearer token (JWT)</label>
        <textarea
          id="token"
          rows={5}
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-describedby="token-help"
          aria-invalid={error ? true : undefined}
          required
          spellCheck={false}
          autoComplete="off"
        />
        <p id="token-help" className="muted">
          Everything you see is the token&apos;s tenant. On the local stack (<code>npm run platform</code>) print a
          development token with <code>node scripts/dev-token.mjs my-tenant</code>; the token is kept in this browser
          tab only and sent to the api with each request.
        </p>
        {error && (
          <p className="notice error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
