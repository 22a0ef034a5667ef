import { useContext, type ReactNode } from 'react';
import { remedyFor, type ApiError } from '../api/api-error.js';
import { ConsoleContext } from '../console-context.js';

function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** An error with its code, the api's message, and what to do about it (a refused token: sign in again). */
export function ErrorState({ error, retry }: { error: ApiError; retry?: () => void }) {
  const signedIn = useContext(ConsoleContext);
  return (
    <div className="notice error" role="alert">
      <p>
        <strong>{error.code}</strong>: {error.message}
      </p>
      <p>{remedyFor(error)}</p>
      {error.status === 401 && signedIn ? (
        <button type="button" onClick={signedIn.signOut}>
          Sign in again
        </button>
      ) : (
        retry && (
          <button type="button" onClick={retry}>
            Try again
          </button>
        )
      )}
    </div>
  );
}

/** Nothing to show yet, and how to get something. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="notice empty">
      <p>
        <strong>{title}</strong>
      </p>
      <p>{children}</p>
    </div>
  );
}

/** Shows loading, the error, or the content of a load. */
export function LoadState<T>({
  loaded,
  what,
  children,
}: {
  loaded: { data: T | undefined; error: ApiError | undefined; loading: boolean; reload: () => void };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (loaded.error) return <ErrorState error={loaded.error} retry={loaded.reload} />;
  if (loaded.data === undefined) return <Loading what={what} />;
  return <>{children(loaded.data)}</>;
}
