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

/** Events after which the run's page reads the run again: a step, the plan or a child run changed. */
const CHANGES = new Set([
  'iteration_complete',
  'tool_result',
  'plan_updated',
  'child_run_started',
  'child_run_finished',
  'state_change',
]);

/**
 * Follows a live run's events (SSE with Last-Event-ID resume) while `follow` is true; `onChange`
 * runs after an event that changes what the run's page shows (a step, the plan, a child run, and
 * `execution_end`). Key the component by run id: the events start empty for each run.
 */
export function useRunEvents(api: PlatformApi, runId: string, follow: boolean, onChange: () => void): RunEventsState {
  const [state, setState] = useState<RunEventsState>({ events: [], phase: follow ? 'live' : 'idle' });
  // The latest callback, without following the stream again when it changes.
  const changeRef = useRef(onChange);
  useEffect(() => {
    changeRef.current = onChange;
  }, [onChange]);
  useEffect(() => {
    if (!follow) return;
    const abort = new AbortController();
    followEventStream({
      open: (afterId, _attempt, signal) => api.runEvents(runId, afterId, signal),
      onEvent: (event) => {
        setState((s) => ({ ...s, phase: 'live', events: [...s.events, event] }));
        if (CHANGES.has(event.type)) changeRef.current();
      },
      isLast: (event) => event.type === 'execution_end',
      onReconnect: () => setState((s) => ({ ...s, phase: 'reconnecting' })),
      signal: abort.signal,
    }).then(
      () => {
        if (abort.signal.aborted) return;
        setState((s) => ({ ...s, phase: 'ended' }));
        changeRef.current();
      },
      (error: ApiError) => !abort.signal.aborted && setState((s) => ({ ...s, phase: 'failed', error })),
    );
    return () => abort.abort();
  }, [api, runId, follow]);
  return state;
}
