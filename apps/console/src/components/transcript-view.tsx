import { Link } from 'wouter';
import { formatCount, formatDuration, prettyJson } from '../lib/format.js';
import type { ToolStep, TranscriptStep } from '../lib/transcript.js';
import { CodeBlock, StatusBadge } from './badges.js';

function ToolCallView({ tool }: { tool: ToolStep }) {
  return (
    <li className="tool-call" data-testid="tool-call">
      <details>
        <summary>
          <span className="tool-name">{tool.name}</span> <StatusBadge status={tool.status} />{' '}
          <span className="muted">{formatDuration(tool.durationMs)}</span>
          {tool.runner && <span className="muted"> · runner {tool.runner}</span>}
          {tool.synthetic && <span className="muted"> · produced by the platform</span>}
          {tool.errorCode && <span className="muted"> · {tool.errorCode}</span>}
        </summary>
        <p className="muted">Call id {tool.callId}</p>
        <CodeBlock label="Arguments" text={prettyJson(tool.arguments) || '(none recorded)'} />
        <CodeBlock
          label="Result"
          text={tool.result === undefined ? '(not in the stored history)' : prettyJson(tool.result)}
        />
        {tool.failures.length > 0 && <CodeBlock label="Failures" text={JSON.stringify(tool.failures, null, 2)} />}
      </details>
    </li>
  );
}

function ModelStepView({ step }: { step: Extract<TranscriptStep, { kind: 'model' }> }) {
  return (
    <li className="step">
      <h3>
        Step {step.iteration}: model call{step.planCall ? ` (${step.planCall})` : ''}
      </h3>
      <p className="muted">
        {step.model.provider}/{step.model.model} · finish {step.model.finishReason} · {formatDuration(step.durationMs)}{' '}
        · {formatCount(step.usage.inputTokens)} in / {formatCount(step.usage.outputTokens)} out
        {step.model.retries > 0 && ` · ${step.model.retries} retries`}
        {step.model.fallbackUsed && ' · fallback model'}
      </p>
      <details>
        <summary>
          Request view: {step.view.messages} messages, ~{formatCount(step.view.estimatedTokens)} tokens, stage{' '}
          {step.view.stage}
          {step.view.diagnostics.length > 0 ? `, ${step.view.diagnostics.length} changes` : ', nothing cut'}
        </summary>
        {step.view.diagnostics.length === 0 ? (
          <p>The model saw the whole history: nothing was trimmed or truncated.</p>
        ) : (
          <ul>
            {step.view.diagnostics.map((d, i) => (
              <li key={i}>
                <strong>{d.kind.replace(/_/g, ' ')}</strong>: {d.detail}
                {d.originalChars !== undefined &&
                  ` (${formatCount(d.originalChars)} → ${formatCount(d.keptChars)} characters)`}
              </li>
            ))}
          </ul>
        )}
      </details>
      {step.model.failures && step.model.failures.length > 0 && (
        <CodeBlock label="Failed model calls before this one" text={JSON.stringify(step.model.failures, null, 2)} />
      )}
      {step.text && <p className="model-text">{step.text}</p>}
      {step.tools.length > 0 && (
        <ul className="tool-calls">
          {step.tools.map((tool) => (
            <ToolCallView key={tool.callId} tool={tool} />
          ))}
        </ul>
      )}
    </li>
  );
}

function PlanStepView({ step }: { step: Extract<TranscriptStep, { kind: 'plan' }> }) {
  if (step.step === 'replan') {
    return (
      <li className="step">
        <h3>Replan (plan version {step.planVersion})</h3>
        <p>{step.reason}</p>
      </li>
    );
  }
  return (
    <li className="step">
      <h3>
        Subtask {step.subtaskId} ({step.role}) <StatusBadge status={step.status} />
      </h3>
      <p className="muted">
        Plan version {step.planVersion} · {step.attempts} attempts · result in <code>{step.resultKey}</code>
      </p>
      {step.error && <p>{step.error}</p>}
      {step.childRunIds.length > 0 && (
        <p>
          Child runs:{' '}
          {step.childRunIds.map((id) => (
            <Link key={id} href={`/runs/${id}`} className="spaced">
              {id}
            </Link>
          ))}
        </p>
      )}
    </li>
  );
}

/** A run's transcript, step by step. */
export function TranscriptView({ steps }: { steps: readonly TranscriptStep[] }) {
  return (
    <ol className="transcript">
      {steps.map((step, i) =>
        step.kind === 'model' ? <ModelStepView key={i} step={step} /> : <PlanStepView key={i} step={step} />,
      )}
    </ol>
  );
}
