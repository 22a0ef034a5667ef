// What recall's GIN indexes without a pending list (`fastupdate = off`, migration 0003) cost
// ingestion, against the default pending list (4 MB) and a small one (64 kB): three copies of an
// episodes-like table (10 tenants, 50k rows, a tenant-leading GIN over the summary's tsvector) take
// the same 3,000 new rows in batches of 15, interleaved, on a durable PostgreSQL; then a recall-like
// lookup (one tenant, six rare words) runs against each while the burst is still pending.
// Reported: per-insert buffer hits and WAL bytes (pg_stat_statements), the lookup's index blocks.
// Run: node --conditions=@platform/source --import tsx bench/memory/src/gin-fastupdate.ts
import { startPostgresServer } from '@platform/testing';
import pg from 'pg';

interface PlanNode {
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}
interface ExplainedPlan {
  Plan: PlanNode;
  'Execution Time': number;
}

const MODES = {
  off: 'fastupdate = off',
  on: 'fastupdate = on',
  small: 'fastupdate = on, gin_pending_list_limit = 64',
} as const;
const names = Object.keys(MODES) as (keyof typeof MODES)[];

const server = await startPostgresServer({ durability: 'durable' });
const db = new pg.Client({ connectionString: server.url() });
db.on('error', () => undefined);
try {
  const setup = new pg.Client({ connectionString: server.url() });
  setup.on('error', () => undefined);
  await setup.connect();
  await setup.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await setup.end();
  await server.halt();
  await server.start();
  await db.connect();
  await db.query('CREATE EXTENSION pg_stat_statements; CREATE EXTENSION btree_gin; CREATE EXTENSION pgstattuple');
  const words = Array.from({ length: 3000 }, (_, i) => `w${(i * 7919) % 100000}x`);
  let seed = 1;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // Word frequencies skewed like prose: low indexes common, high indexes rare.
  const summary = (): string =>
    `The user said: ${Array.from({ length: 12 }, () => words[Math.floor(rnd() ** 2 * words.length)]).join(' ')}`;
  const insert = (table: string, rows: { t: string; s: string }[]) =>
    db.query(`INSERT INTO ${table} (tenant_id, summary) SELECT * FROM unnest($1::text[], $2::text[])`, [
      rows.map((r) => r.t),
      rows.map((r) => r.s),
    ]);
  for (const name of names) {
    await db.query(
      `CREATE TABLE ep_${name} (tenant_id text NOT NULL, id bigserial, summary text NOT NULL, search_vector tsvector GENERATED ALWAYS AS (to_tsvector('english', summary)) STORED)`,
    );
    await db.query(
      `CREATE INDEX ep_${name}_gin ON ep_${name} USING gin (tenant_id, search_vector) WITH (${MODES[name]})`,
    );
  }
  const seeded = Array.from({ length: 50_000 }, (_, i) => ({ t: `t${i % 10}`, s: summary() }));
  for (let i = 0; i < seeded.length; i += 1000)
    for (const name of names) await insert(`ep_${name}`, seeded.slice(i, i + 1000));
  for (const name of names) await db.query(`VACUUM ANALYZE ep_${name}`);
  await db.query('SELECT pg_stat_statements_reset()');
  const burst = Array.from({ length: 3000 }, (_, i) => ({ t: `t${i % 10}`, s: summary() }));
  for (let i = 0; i < burst.length; i += 15)
    for (const name of names) await insert(`ep_${name}`, burst.slice(i, i + 15));
  const { rows } = await db.query<{ query: string; rows: string; hit: string; dirtied: string; wal: string }>(
    `SELECT query, rows, shared_blks_hit AS hit, shared_blks_dirtied AS dirtied, wal_bytes AS wal FROM pg_stat_statements WHERE query LIKE 'INSERT INTO ep_%'`,
  );
  const query = words.slice(2900, 2906).join(' | ');
  process.stdout.write(
    '| GIN | buffer hits per row | WAL bytes per row | pending pages after the burst | lookup: index blocks | lookup ms |\n|---|---|---|---|---|---|\n',
  );
  for (const name of names) {
    const stat = rows.find((r) => r.query.startsWith(`INSERT INTO ep_${name} `))!;
    const pending = (
      await db.query<{ pending_pages: number }>(`SELECT pending_pages FROM pgstatginindex('ep_${name}_gin')`)
    ).rows[0]!.pending_pages;
    const explained = await db.query<{ 'QUERY PLAN': ExplainedPlan[] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT id FROM ep_${name} WHERE tenant_id = 't3' AND search_vector @@ to_tsquery('english', $1)`,
      [query],
    );
    const plan = explained.rows[0]!['QUERY PLAN'][0]!;
    // The bitmap heap scan's child: the index scan.
    const index = plan.Plan.Plans?.[0];
    const indexBlocks = (index?.['Shared Hit Blocks'] ?? 0) + (index?.['Shared Read Blocks'] ?? 0);
    const per = (v: string) => (Number(v) / Number(stat.rows)).toFixed(1);
    process.stdout.write(
      `| ${MODES[name]} | ${per(stat.hit)} | ${per(stat.wal)} | ${pending} | ${indexBlocks} | ${plan['Execution Time'].toFixed(2)} |\n`,
    );
  }
} finally {
  await db.end().catch(() => undefined);
  await server.stop();
}
