import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../api/api-error.js';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

export interface LoadOptions<T> {
  /** Load again every this many ms while the page is shown (lists that follow the platform), or only while what was loaded says so. */
  refreshMs?: number | ((data: T | undefined) => number | undefined);
}

/**
 * Loads what a page shows, cached under `key` (TanStack Query; the query client is the signed-in
 * session's, so a key needs no token). Errors are the api's, never retried silently.
 */
export function useLoad<T>(key: readonly unknown[], load: () => Promise<T>, options: LoadOptions<T> = {}): Loaded<T> {
  const { refreshMs } = options;
  const query = useQuery({
    queryKey: key,
    queryFn: load,
    retry: false,
    refetchOnWindowFocus: false,
    ...(refreshMs === undefined
      ? {}
      : {
          refetchInterval:
            typeof refreshMs === 'number'
              ? refreshMs
              : (query: { state: { data: T | undefined } }) => refreshMs(query.state.data) ?? false,
        }),
  });
  const error = query.error
    ? query.error instanceof ApiError
      ? query.error
      : new ApiError(0, 'CLIENT', query.error.message)
    : undefined;
  return { data: query.data, error, loading: query.isFetching, reload: () => void query.refetch() };
}
