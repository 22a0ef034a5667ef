import { useEffect, useRef, useState } from 'react';
import type { PlatformApi } from '../api/endpoints.js';
import type { ApiError } from '../api/api-error.js';
import { followEventStream, type StreamedEvent } from '../lib/event-stream.js';

export interface RunEventsState {
  events: StreamedEvent[];
  /** `live` while following, `reconnecting` after a cut (resumes after the last id), `ended`, or `failed`. */
  phase: 'idle' | 'live' | 'reconnecting' | 'ended' | 'failed';
  error?: ApiError;
}

/**
 * Follows a live run's events (SSE with Last-Event-ID resume) while `follow` is true; `onEnd` runs
 * after `execution_end`. Key the component by run id: the events start empty for each run.
 */
export function useRunEvents(api: PlatformApi, runId: string, follow: boolean, onEnd: () => void): RunEventsState {
  const [state, setState] = useState<RunEventsState>({ events: [], phase: follow ? 'live' : 'idle' });
  // The latest callback, without following the stream again when it changes.
  const endRef = useRef(onEnd);
  useEffect(() => {
    endRef.current = onEnd;
  }, [onEnd]);
  useEffect(() => {
    if (!follow) return;
    const abort = new AbortController();
    followEventStream({
      open: (afterId, _attempt, signal) => api.runEvents(runId, afterId, signal),
      onEvent: (event) => setState((s) => ({ ...s, phase: 'live', events: [...s.events, event] })),
      isLast: (event) => event.type === 'execution_end',
      onReconnect: () => setState((s) => ({ ...s, phase: 'reconnecting' })),
      signal: abort.signal,
    }).then(
      () => {
        if (abort.signal.aborted) return;
        setState((s) => ({ ...s, phase: 'ended' }));
        endRef.current();
      },
      (error: ApiError) => !abort.signal.aborted && setState((s) => ({ ...s, phase: 'failed', error })),
    );
    return () => abort.abort();
  }, [api, runId, follow]);
  return state;
}
