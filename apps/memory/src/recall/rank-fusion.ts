/** One search's ranking: item keys, best first. */
export interface Ranking {
  /** Names the search in `matchedBy` ("fulltext", "trigram", "vector"). */
  search: string;
  keys: readonly string[];
}

export interface FusionSettings {
  /** RRF constant: a rank r contributes 1 / (k + r). 60 is the value of the original paper. */
  k: number;
  /** The fused score halves every this many days of age (0 = no decay). */
  halfLifeDays: number;
}

export interface FusedItem {
  key: string;
  score: number;
  /** e.g. ["fulltext#1", "vector#3"]. */
  matchedBy: string[];
  /** The recency factor applied (1 = no decay). */
  recency: number;
  ageDays: number;
}

/**
 * Reciprocal rank fusion with recency decay. RRF uses only ranks, so searches whose scores live on
 * different scales (ts_rank, trigram similarity, cosine distance) combine without calibration, and
 * an item found by several searches rises above one found by a single search. The decay then
 * prefers newer knowledge among equally relevant items: score x 0.5^(age / half-life).
 */
export function fuseRankings(
  rankings: readonly Ranking[],
  ageDaysOf: (key: string) => number,
  settings: FusionSettings,
): FusedItem[] {
  const fused = new Map<string, { score: number; matchedBy: string[] }>();
  for (const ranking of rankings) {
    ranking.keys.forEach((key, index) => {
      const entry = fused.get(key) ?? { score: 0, matchedBy: [] };
      entry.score += 1 / (settings.k + index + 1);
      entry.matchedBy.push(`${ranking.search}#${index + 1}`);
      fused.set(key, entry);
    });
  }
  const out: FusedItem[] = [];
  for (const [key, { score, matchedBy }] of fused) {
    const ageDays = Math.max(0, ageDaysOf(key));
    const recency = settings.halfLifeDays > 0 ? Math.pow(0.5, ageDays / settings.halfLifeDays) : 1;
    out.push({ key, score: score * recency, matchedBy, recency, ageDays });
  }
  return out.sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
}

/** The one-line reason shown with a recalled item. */
export function whyRecalled(item: FusedItem): string {
  const names: Record<string, string> = { fulltext: 'full text', trigram: 'trigram', vector: 'vector' };
  const matches = item.matchedBy.map((m) => {
    const [search, rank] = m.split('#');
    return `${names[search ?? ''] ?? search} rank ${rank}`;
  });
  const age = item.ageDays < 1 ? 'today' : `${Math.round(item.ageDays)} days old`;
  return `${matches.join(', ')}; ${age} (x${item.recency.toFixed(2)})`;
}

/** Rough token estimate for budgets: ~4 characters per token, never 0. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
