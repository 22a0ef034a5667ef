import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { ApiError } from '../api/api-error.js';
import { useConsole } from '../console-context.js';
import { ErrorState } from './states.js';

/** The last step a replay may start from: an answer is no place to start (the api says so too). */
function lastStartStep(steps: number, answered: boolean): number {
  return Math.max(0, answered ? steps - 1 : steps);
}

/**
 * "Replay from step" (docs/conversations.md#replaying-a-run): a finished run again from one of its
 * steps, under another version of its agent or another model, as a new run in a fork of its
 * conversation; the new run's page opens.
 */
export function ReplayRun({ runId, steps, answered }: { runId: string; steps: number; answered: boolean }) {
  const { api } = useConsole();
  const [, navigate] = useLocation();
  const last = lastStartStep(steps, answered);
  const [fromStep, setFromStep] = useState(last);
  const [agentVersion, setAgentVersion] = useState('');
  const [model, setModel] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const replay = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const version = Number(agentVersion);
      const replayed = await api.replayRun(runId, {
        fromStep,
        ...(agentVersion.trim() && Number.isInteger(version) ? { agentVersion: version } : {}),
        ...(model.trim() ? { model: model.trim() } : {}),
      });
      setError(undefined);
      navigate(`/runs/${encodeURIComponent(replayed.runId)}`);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'CLIENT', (err as Error).message));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="replay-title">
      <h2 id="replay-title">Replay from step</h2>
      <p className="muted">
        The steps before the one chosen are answered from this run&apos;s journal (no model call, no tool call); the
        rest runs live, in a new conversation forked before this run&apos;s message. This run stays as it is.
      </p>
      <form className="composer" onSubmit={(e) => void replay(e)}>
        {/* The transcript numbers its steps from 1; the api's fromStep counts the steps kept, from 0. */}
        <label htmlFor="replay-step">Replay live from</label>
        <select id="replay-step" value={fromStep} onChange={(e) => setFromStep(Number(e.target.value))}>
          {Array.from({ length: last + 1 }, (_, step) => (
            <option key={step} value={step}>
              Step {step + 1}
            </option>
          ))}
        </select>
        <label htmlFor="replay-version">Agent version (empty: the run&apos;s)</label>
        <input
          id="replay-version"
          inputMode="numeric"
          value={agentVersion}
          onChange={(e) => setAgentVersion(e.target.value)}
        />
        <label htmlFor="replay-model">Model (empty: the run&apos;s)</label>
        <input id="replay-model" value={model} onChange={(e) => setModel(e.target.value)} />
        <button type="submit" disabled={busy}>
          Replay
        </button>
      </form>
      {error && <ErrorState error={error} />}
    </section>
  );
}
