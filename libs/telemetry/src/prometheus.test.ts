import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, workspaceRoot, type ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from './test-support/spawn-app.js';

/**
 * A process started through the register entry (as every service is) with
 * OTEL_METRICS_EXPORTER=prometheus serves /metrics; it records one value of every platform
 * instrument, so its scrape is the list of metric names the platform exports. The dashboard and
 * the alert rules in deploy/observability may only query those.
 */
let app: ManagedProcess;
let exposition = '';

/** Metric names a scrape can return: each family, with a histogram's `_bucket`, `_sum` and `_count` series. */
function seriesNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = match as unknown as [string, string, string];
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name);
  }
  return names;
}

function labelNames(text: string): Set<string> {
  const labels = new Set<string>();
  for (const match of text.matchAll(/^[a-zA-Z_:][\w:]*\{([^}]*)\}/gm))
    for (const pair of match[1]!.matchAll(/([a-zA-Z_]\w*)="/g)) labels.add(pair[1]!);
  return labels;
}

/** Labels Prometheus adds at scrape time (Kubernetes service discovery) or that PromQL itself knows. */
const SCRAPE_LABELS = new Set(['namespace', 'pod', 'job', 'instance', 'container', 'le']);
/** Series Prometheus makes itself. */
const PROMETHEUS_SERIES = new Set(['up']);
const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);

/** The metric and label names one PromQL expression uses. */
function promqlNames(expr: string): { metrics: string[]; labels: string[] } {
  const labels: string[] = [];
  let rest = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  rest = rest.replace(/\{([^}]*)\}/g, (_m, inner: string) => {
    for (const matcher of inner.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.push(matcher[1]!);
    return ' ';
  });
  rest = rest.replace(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g, (_m, inner: string) => {
    labels.push(
      ...inner
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    );
    return ' ';
  });
  rest = rest.replace(/\[[^\]]*\]/g, ' ').replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi, ' ');
  const metrics: string[] = [];
  for (const match of rest.matchAll(/([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (call || PROMQL_WORDS.has(name!) || /^\d/.test(name!) || /^e\d+$/.test(name!)) continue;
    metrics.push(name!);
  }
  return { metrics, labels };
}

const observability = path.join(workspaceRoot(), 'deploy/observability');

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(path.join(observability, 'grafana-dashboard.json'), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr.replaceAll('$namespace', '.*')));
}

function ruleExpressions(): string[] {
  return [...readFileSync(path.join(observability, 'prometheus-rules.yaml'), 'utf8').matchAll(/^\s+expr: (.+)$/gm)].map(
    (m) => m[1]!,
  );
}

/** GitHub's anchor of a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

beforeAll(async () => {
  const port = await freePort();
  app = startApp('every-metric-app.ts', {
    env: {
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
      OTEL_SERVICE_NAME: 'metrics-fixture',
    },
  });
  await app.waitForOutput((out) => out.includes('ready'), 30_000);
  for (let attempt = 0; attempt < 100 && !exposition.includes('platform_turn_duration'); attempt++) {
    exposition = await fetch(`http://127.0.0.1:${port}/metrics`)
      .then((r) => (r.ok ? r.text() : ''))
      .catch(() => '');
    if (!exposition.includes('platform_turn_duration')) await new Promise((r) => setTimeout(r, 200));
  }
});

afterAll(async () => app?.stop());

describe('metrics for Prometheus', () => {
  it('serves every platform metric on /metrics, GenAI names for model calls', () => {
    const names = seriesNames(exposition);
    for (const name of [
      'gen_ai_client_operation_duration_bucket',
      'gen_ai_client_token_usage_bucket',
      'platform_tool_duration_count',
      'platform_turn_duration_bucket',
      'platform_tenant_token_usage_total',
      'platform_trigger_fire_lag_bucket',
      'platform_memory_ingest_duration_count',
      'platform_consumer_lag',
      'platform_agent_pool_entries',
      'platform_agent_pool_approvals_expiring',
      'platform_quota_refusals_total',
      'platform_api_streams_open',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(exposition).toMatch(/gen_ai_client_token_usage_count\{[^}]*gen_ai_token_type="input"/);
    expect(exposition).toMatch(
      /platform_tool_duration_count\{[^}]*gen_ai_tool_name="web_fetch"[^}]*platform_tool_status="timeout"/,
    );
    expect(exposition).toMatch(/target_info\{[^}]*service_name="metrics-fixture"/);
  });

  it.each([
    ['the Grafana dashboard', dashboardExpressions],
    ['the alert rules', ruleExpressions],
  ])('%s only queries metrics and labels the platform exports', (_what, expressions) => {
    const exported = seriesNames(exposition);
    const labels = labelNames(exposition);
    const queries = expressions();
    expect(queries.length).toBeGreaterThan(5);
    const unknown = queries.flatMap((expr) => {
      const used = promqlNames(expr);
      return [
        ...used.metrics
          .filter((m) => !exported.has(m) && !PROMETHEUS_SERIES.has(m))
          .map((m) => `metric ${m} in ${expr}`),
        ...used.labels.filter((l) => !labels.has(l) && !SCRAPE_LABELS.has(l)).map((l) => `label ${l} in ${expr}`),
      ];
    });
    expect(unknown).toEqual([]);
  });

  it('the name check itself finds what is not exported', () => {
    expect(
      promqlNames(
        'sum by (gen_ai_tool_name) (rate(platform_tool_duraton_count{platform_tool_status!="success"}[5m])) > 0.2',
      ),
    ).toEqual({
      metrics: ['platform_tool_duraton_count'],
      labels: ['platform_tool_status', 'gen_ai_tool_name'],
    });
  });

  it('every alert links a runbook section of docs/operations.md', () => {
    const rules = readFileSync(path.join(observability, 'prometheus-rules.yaml'), 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    const links = [...rules.matchAll(/runbook_url: (\S+)/g)].map((m) => m[1]!);
    expect(links).toHaveLength(alerts.length);
    const anchors = new Set(
      [...readFileSync(path.join(workspaceRoot(), 'docs/operations.md'), 'utf8').matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
        anchorOf(m[1]!),
      ),
    );
    const broken = links.filter((link) => {
      const [file, anchor] = link.split('#');
      return file !== 'docs/operations.md' || !anchor || !anchors.has(anchor);
    });
    expect(broken).toEqual([]);
  });
});
