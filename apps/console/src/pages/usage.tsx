import type { UsageReport } from '../api/types.js';
import { EmptyState, LoadState } from '../components/states.js';
import { useDraft } from '../components/use-draft.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatCount } from '../lib/format.js';
import { usageBars } from '../lib/usage-chart.js';
import { DataTable } from '../components/table.js';

const CHART = { width: 720, height: 200, gap: 2 };
const isoDay = (time: number): string => new Date(time).toISOString().slice(0, 10);
const lastTwoWeeks = (): { from: string; to: string } => ({
  from: isoDay(Date.now() - 13 * 86_400_000),
  to: isoDay(Date.now()),
});

function UsageChart({ report, from, to }: { report: UsageReport; from: string; to: string }) {
  const bars = usageBars(report.days, from, to, CHART.width, CHART.height);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height + 20}`} role="img" aria-labelledby="usage-chart-title">
        <title id="usage-chart-title">
          Turns and tokens per day from {from} to {to}: {formatCount(report.total.turns)} turns,{' '}
          {formatCount(report.total.inputTokens + report.total.outputTokens)} tokens
        </title>
        {bars.map((bar) => {
          const half = Math.max((bar.width - CHART.gap * 2) / 2, 1);
          return (
            <g key={bar.day}>
              <title>
                {bar.day}: {bar.turns} turns, {formatCount(bar.tokens)} tokens
              </title>
              <rect
                className="bar-turns"
                x={bar.x + CHART.gap}
                y={CHART.height - bar.turnsHeight}
                width={half}
                height={bar.turnsHeight}
              />
              <rect
                className="bar-tokens"
                x={bar.x + CHART.gap + half}
                y={CHART.height - bar.tokensHeight}
                width={half}
                height={bar.tokensHeight}
              />
            </g>
          );
        })}
        <line x1={0} x2={CHART.width} y1={CHART.height} y2={CHART.height} className="axis" />
        <text x={0} y={CHART.height + 15} className="axis-label">
          {from}
        </text>
        <text x={CHART.width} y={CHART.height + 15} textAnchor="end" className="axis-label">
          {to}
        </text>
      </svg>
      <figcaption>
        <span className="key key-turns" /> turns · <span className="key key-tokens" /> tokens (input + output), each
        scaled to its own maximum
      </figcaption>
    </figure>
  );
}

/** Turns and model tokens per UTC day, as a chart and a table. */
export function UsagePage() {
  const { api } = useConsole();
  const { applied: range, draft, setDraft, apply } = useDraft(lastTwoWeeks);
  const loaded = useLoad(['usage', range], () => api.usage(range.from, range.to));
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <form className="filters" onSubmit={(event) => apply(event, loaded.reload)} aria-label="Usage range">
        <label>
          From
          <input
            type="date"
            value={draft.from}
            max={draft.to}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
            required
          />
        </label>
        <label>
          To
          <input type="date" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} required />
        </label>
        <div className="actions">
          <button type="submit">Show</button>
        </div>
      </form>
      <LoadState loaded={loaded} what="usage">
        {(report) =>
          report.days.length === 0 ? (
            <EmptyState title="No finished turns in this range.">
              Pick a wider range, or send a message to start counting.
            </EmptyState>
          ) : (
            <>
              <UsageChart report={report} from={range.from} to={range.to} />
              <DataTable
                caption="Per day (days without turns left out)"
                columns={['Day (UTC)', 'Turns', 'Input tokens', 'Output tokens']}
              >
                {report.days.map((d) => (
                  <tr key={d.day}>
                    <td>{d.day}</td>
                    <td>{formatCount(d.turns)}</td>
                    <td>{formatCount(d.inputTokens)}</td>
                    <td>{formatCount(d.outputTokens)}</td>
                  </tr>
                ))}
                <tr className="total">
                  <th scope="row">Total</th>
                  <td>{formatCount(report.total.turns)}</td>
                  <td>{formatCount(report.total.inputTokens)}</td>
                  <td>{formatCount(report.total.outputTokens)}</td>
                </tr>
              </DataTable>
            </>
          )
        }
      </LoadState>
    </section>
  );
}
