// What one recall costs, in measures that do not depend on the host's load: the CPU time of the
// PostgreSQL backend per kind of statement (utime + stime from /proc, each kind of statement on its
// own connection), statements per recall, and this process's CPU (the engine: fusion, row parsing,
// the embeddings call). Several memory checkouts' RecallEngine run against the same seeded database
// (seeded-cluster.ts) in alternating rounds, and their answers are compared query by query, so a
// change that is faster but recalls other items shows up.
// Run: STATE_FILE=/tmp/recall/state.json MEMORY_ROOTS=before=/work/main,after=.,ef20=.?hnsw.ef_search=20 QUERIES=100 ROUNDS=3 HYBRID=1 \
//      (after a root, `?name=value&...`: connection settings (names with a dot) and RecallEngine settings of that variant)
//      EXPLAIN_QUERIES=30 (also EXPLAIN (ANALYZE, BUFFERS) every statement of the first 30 queries) \
//      node --conditions=@platform/source --import tsx bench/memory/src/recall-cost.ts
import { sampleProcess } from '@platform/bench-kit';
import { OpenAIEmbeddings } from '@platform/llm';
import { createLogger } from '@platform/service-kit';
import { median } from '@platform/testing';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { random, syntheticQuery } from './corpus.js';
import { TENANTS } from './seeding.js';
import { SIM_KEY } from './sim-embeddings.js';

const STATE_FILE = process.env['STATE_FILE'] ?? 'seeded-cluster.json';
const QUERIES = Number(process.env['QUERIES'] ?? 100);
const WARMUP = Number(process.env['WARMUP'] ?? 20);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const EXPLAIN_QUERIES = Number(process.env['EXPLAIN_QUERIES'] ?? 0);
const HYBRID = process.env['HYBRID'] !== '0';
const SETTINGS = {
  search_path: 'memory',
  'pg_trgm.word_similarity_threshold': '0.5',
  'hnsw.iterative_scan': 'relaxed_order',
};

interface EngineLike {
  recall(q: {
    tenantId: string;
    query: string;
    collectionPrefix: string;
    limit: number;
    tokenBudget: number;
    conversationId: string;
    includeEpisodes: boolean;
  }): Promise<{ items: { text: string }[]; searchMode: string }>;
}

interface Variant {
  label: string;
  root: string;
  /** Connection settings (names with a dot, e.g. hnsw.ef_search) and engine settings this variant overrides. */
  overrides: Record<string, string>;
  engine?: EngineLike;
  router?: StatementRouter;
  rounds: Round[];
}

interface Explained {
  statements: number;
  planningMs: number;
  executionMs: number;
  /** Shared buffers hit or read by the plan (planning's own excluded). */
  blocks: number;
}

interface ExplainJson {
  'Planning Time': number;
  'Execution Time': number;
  Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
}

interface Round {
  load: number;
  backendMs: Map<string, number>;
  statements: Map<string, number>;
  engineMs: number;
  wallMs: number[];
  answers: string[][];
}

/** Which kind a recall statement is, from its text (each kind gets its own connection). */
function kindOf(sql: string): string {
  const explicit = /^\s*\/\* recall:([a-z-]+) \*\//.exec(sql)?.[1];
  if (explicit) return explicit;
  if (sql.includes('pg_stats')) return 'common-lexemes';
  if (sql.includes('<=>')) return 'vector';
  if (sql.includes('recall_terms')) return 'trigram';
  if (sql.includes('ts_rank')) return 'fulltext';
  if (sql.includes('fact_id = ANY')) return 'load-facts';
  if (sql.includes('episode_id = ANY')) return 'load-episodes';
  return 'other';
}

/** A pool look-alike that runs each kind of statement on its own connection, so each backend's CPU is one kind's. */
class StatementRouter {
  readonly clients = new Map<string, { client: pg.Client; pid: number }>();
  readonly counts = new Map<string, number>();
  /** When set, every statement is first run under EXPLAIN (ANALYZE, BUFFERS) on a connection of its own, and its figures summed here. */
  explained: Map<string, Explained> | undefined;
  constructor(
    private readonly url: string,
    private readonly settings: Record<string, string>,
  ) {}

  /** As a pool's query: the text alone, or a config (recall names some of its statements, so they are prepared once per connection). */
  async query(statement: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> {
    const text = typeof statement === 'string' ? statement : statement.text;
    const kind = kindOf(text);
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (this.explained) await this.explain(kind, text, values);
    return (await this.client(kind)).query(statement, values);
  }

  private async explain(kind: string, text: string, values?: unknown[]): Promise<void> {
    const { rows } = await (
      await this.client(`explain-${kind}`)
    ).query<{ 'QUERY PLAN': [ExplainJson] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
    const plan = rows[0]!['QUERY PLAN'][0];
    const sum = this.explained!.get(kind) ?? { statements: 0, planningMs: 0, executionMs: 0, blocks: 0 };
    sum.statements += 1;
    sum.planningMs += plan['Planning Time'];
    sum.executionMs += plan['Execution Time'];
    sum.blocks += plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks'];
    this.explained!.set(kind, sum);
  }

  private async client(kind: string): Promise<pg.Client> {
    const known = this.clients.get(kind);
    if (known) return known.client;
    const options = Object.entries(this.settings)
      .map(([k, v]) => `-c ${k}=${v}`)
      .join(' ');
    const client = new pg.Client({ connectionString: this.url, options });
    const entry = { client, pid: 0 };
    this.clients.set(kind, entry);
    await client.connect();
    entry.pid = Number((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
    return client;
  }

  async cpu(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [kind, { pid }] of this.clients)
      if (!kind.startsWith('explain-')) out.set(kind, (await sampleProcess(pid)).cpuMs);
    return out;
  }

  async end(): Promise<void> {
    for (const { client } of this.clients.values()) await client.end();
  }
}

/** The corpus words a synthetic query asks about (its filler words left out). */
const FILLER = new Set('what do you remember about and where does live'.split(' '));
const ownWords = (query: string): string[] => query.split(' ').filter((w) => !FILLER.has(w));

function queries(): { tenantId: string; query: string }[] {
  const rnd = random(42);
  return Array.from({ length: WARMUP + QUERIES }, () => ({
    tenantId: `tenant-${Math.floor(rnd() * TENANTS)}`,
    query: syntheticQuery(rnd),
  }));
}

async function open(v: Variant, url: string, simUrl: string): Promise<void> {
  const recallDir = path.join(v.root, 'apps/memory/src/recall');
  const { RecallEngine } = (await import(path.join(recallDir, 'recall-engine.ts'))) as {
    RecallEngine: new (...args: unknown[]) => EngineLike;
  };
  const { VectorIndex } = (await import(path.join(recallDir, 'vector-index.ts'))) as {
    VectorIndex: { open(...args: unknown[]): Promise<{ index: unknown }> };
  };
  const logger = createLogger({ service: `recall-cost-${v.label}`, level: 'warn' });
  const connectionOverrides = Object.fromEntries(Object.entries(v.overrides).filter(([k]) => k.includes('.')));
  const engineOverrides = Object.fromEntries(
    Object.entries(v.overrides)
      .filter(([k]) => !k.includes('.'))
      .map(([k, value]) => [k, Number(value)]),
  );
  v.router = new StatementRouter(url, { ...SETTINGS, ...connectionOverrides });
  const setup = new pg.Pool({ connectionString: url, options: '-c search_path=memory', max: 2 });
  const embeddings = HYBRID
    ? new OpenAIEmbeddings({
        baseURL: simUrl,
        apiKey: SIM_KEY,
        model: 'sim-embed-1',
        dimensions: 256,
        timeoutMs: 5_000,
      })
    : undefined;
  const { index } = await VectorIndex.open(setup, embeddings, logger);
  await setup.end();
  const settings = {
    k: 60,
    halfLifeDays: 90,
    candidates: 50,
    trigramThreshold: 0.5,
    trigramWords: 6,
    trigramTerms: 8,
    perTermCandidates: 200,
    commonTermsRefreshMs: 600_000,
    historyMessages: 6,
    embeddingTimeoutMs: 5_000,
    vectorMinSimilarity: 0.25,
    vectorCandidates: 20,
  };
  v.engine = new RecallEngine(v.router, index, { ...settings, ...engineOverrides }, logger);
}

async function round(v: Variant, all: { tenantId: string; query: string }[]): Promise<Round> {
  const ask = (q: { tenantId: string; query: string }) =>
    v.engine!.recall({
      ...q,
      collectionPrefix: '',
      limit: 8,
      tokenBudget: 400,
      conversationId: '',
      includeEpisodes: true,
    });
  for (const q of all.slice(0, WARMUP)) await ask(q);
  const counts0 = new Map(v.router!.counts);
  const cpu0 = await v.router!.cpu();
  const engine0 = process.cpuUsage();
  const wallMs: number[] = [];
  const answers: string[][] = [];
  for (const q of all.slice(WARMUP)) {
    const started = performance.now();
    const response = await ask(q);
    wallMs.push(performance.now() - started);
    answers.push(response.items.map((i) => i.text));
  }
  const engine = process.cpuUsage(engine0);
  const cpu1 = await v.router!.cpu();
  const backendMs = new Map([...cpu1].map(([k, ms]) => [k, ms - (cpu0.get(k) ?? 0)]));
  const statements = new Map([...v.router!.counts].map(([k, n]) => [k, n - (counts0.get(k) ?? 0)]));
  return {
    load: loadavg()[0]!,
    backendMs,
    statements,
    engineMs: (engine.user + engine.system) / 1000,
    wallMs,
    answers,
  };
}

/** EXPLAIN (ANALYZE, BUFFERS) of every statement of the first queries: planning and execution time, blocks, per kind. */
async function explainAll(v: Variant, some: { tenantId: string; query: string }[]): Promise<void> {
  v.router!.explained = new Map();
  for (const q of some)
    await v.engine!.recall({
      ...q,
      collectionPrefix: '',
      limit: 8,
      tokenBudget: 400,
      conversationId: '',
      includeEpisodes: true,
    });
  const explained = v.router!.explained;
  v.router!.explained = undefined;
  process.stdout.write(
    `\n${v.label}: EXPLAIN (ANALYZE, BUFFERS) over ${some.length} recalls, per recall (planning ms, execution ms, shared blocks, statements)\n`,
  );
  for (const [kind, e] of [...explained].sort()) {
    const per = (n: number) => (n / some.length).toFixed(2);
    process.stdout.write(
      `  ${kind.padEnd(14)} planning ${per(e.planningMs)}  execution ${per(e.executionMs)}  blocks ${per(e.blocks)}  statements ${per(e.statements)}\n`,
    );
  }
}

function report(variants: Variant[]): void {
  const kinds = [...new Set(variants.flatMap((v) => v.rounds.flatMap((r) => [...r.backendMs.keys()])))].sort();
  const per = (n: number) => (n / QUERIES).toFixed(2);
  process.stdout.write(
    `\nPer recall (${QUERIES} queries a round, ${ROUNDS} alternating rounds, medians), ${HYBRID ? 'hybrid' : 'keyword'}:\n`,
  );
  process.stdout.write(
    `| variant | ${kinds.map((k) => `${k} backend ms`).join(' | ')} | backend total ms | statements | engine (this process) ms | wall p50 ms | load avg |\n|${'---|'.repeat(kinds.length + 6)}\n`,
  );
  for (const v of variants) {
    const m = (f: (r: Round) => number) => median(v.rounds.map(f));
    const cells = kinds.map((k) => per(m((r) => r.backendMs.get(k) ?? 0)));
    const total = per(m((r) => [...r.backendMs.values()].reduce((a, b) => a + b, 0)));
    const statements = per(m((r) => [...r.statements.values()].reduce((a, b) => a + b, 0)));
    const wall = m((r) => median([...r.wallMs].sort((a, b) => a - b)));
    process.stdout.write(
      `| ${v.label} | ${cells.join(' | ')} | ${total} | ${statements} | ${per(m((r) => r.engineMs))} | ${wall.toFixed(2)} | ${v.rounds.map((r) => r.load.toFixed(1)).join(', ')} |\n`,
    );
  }
  const [first, ...others] = variants;
  for (const other of others) {
    const a = first!.rounds[0]!.answers;
    const b = other.rounds[0]!.answers;
    let same = 0;
    let overlap = 0;
    let items = 0;
    for (let i = 0; i < a.length; i++) {
      if (JSON.stringify(a[i]) === JSON.stringify(b[i])) same += 1;
      const set = new Set(a[i]);
      overlap += b[i]!.filter((t) => set.has(t)).length;
      items += a[i]!.length;
    }
    process.stdout.write(
      `${other.label} vs ${first!.label}: identical answers ${same}/${a.length}; items in common ${overlap}/${items}\n`,
    );
  }
  const asked = queries()
    .slice(WARMUP)
    .map((q) => ownWords(q.query));
  for (const v of variants) {
    const answers = v.rounds[0]!.answers;
    const items = answers.flat().length;
    const relevant = answers.reduce(
      (n, a, i) => n + a.filter((text) => asked[i]!.some((w) => text.toLowerCase().includes(w))).length,
      0,
    );
    const matches = answers.reduce(
      (n, a, i) =>
        n +
        a.reduce(
          (m, text) =>
            m + asked[i]!.filter((w) => text.toLowerCase().includes(w)).length + (text.includes(' lives in ') ? 1 : 0),
          0,
        ),
      0,
    );
    process.stdout.write(
      `${v.label}: ${items} items, ${relevant} of them contain one of the query's own words (not its filler); query words matched in all items (own words + "live") ${matches}\n`,
    );
  }
}

async function main(): Promise<void> {
  const state = JSON.parse(await readFile(STATE_FILE, 'utf8')) as { url: string; simUrl: string };
  const variants: Variant[] = (process.env['MEMORY_ROOTS'] ?? 'this=.').split(',').map((entry) => {
    const [label, spec] = entry.split(/=(.*)/s) as [string, string];
    const [root, query] = spec.split('?') as [string, string | undefined];
    return {
      label,
      root: path.resolve(root),
      overrides: Object.fromEntries(new URLSearchParams(query ?? '')),
      rounds: [],
    };
  });
  for (const v of variants) await open(v, state.url, state.simUrl);
  const all = queries();
  try {
    if (EXPLAIN_QUERIES > 0) for (const v of variants) await explainAll(v, all.slice(WARMUP, WARMUP + EXPLAIN_QUERIES));
    for (let r = 1; r <= ROUNDS; r++) {
      for (const v of r % 2 ? variants : [...variants].reverse()) {
        v.rounds.push(await round(v, all));
        process.stderr.write(`round ${r}/${ROUNDS}: ${v.label} done (load ${loadavg()[0]!.toFixed(1)})\n`);
      }
    }
    report(variants);
  } finally {
    for (const v of variants) await v.router?.end();
  }
}

await main();
