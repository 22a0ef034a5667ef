/** One member's answer, read for voting. */
export interface MemberAnswer {
  role: string;
  text: string;
  /** The number the answer gives (an `ANSWER: <number>` line, or an answer that is only a number). */
  value?: number;
  /** 0..1, from a `confidence: 0.8` (or `80%`) line; absent when the member gave none. */
  confidence?: number;
}

export interface NumericConflict {
  min: number;
  max: number;
  /** (max - min) / the larger magnitude. */
  spread: number;
  tolerance: number;
  /** Members outside the largest group of answers within the tolerance. */
  outliers: string[];
}

export interface Resolution {
  answer: string;
  value?: number;
  /** Who decided: the strategy, or the fallback it needed (`majority-tie→confidence`). */
  decidedBy: string;
  /** The roles whose answer won. */
  winners: string[];
  conflict: NumericConflict | null;
}

const NUMBER = String.raw`-?\d[\d,]*(?:\.\d+)?|-?\.\d+`;

function toNumber(text: string): number | undefined {
  const value = Number(text.replace(/,/g, ''));
  return Number.isFinite(value) ? value : undefined;
}

/** Reads a member's answer: its number (if it gives one) and its confidence (if it says). */
export function readAnswer(role: string, text: string): MemberAnswer {
  const answerLine = new RegExp(String.raw`(?:^|\n)\s*answer\s*[:=]\s*(${NUMBER})\s*(?:\n|$)`, 'i').exec(text);
  const bare = new RegExp(String.raw`^\s*(${NUMBER})\s*$`).exec(text);
  const value = toNumber(answerLine?.[1] ?? bare?.[1] ?? 'x');
  const conf = /confidence\s*[:=]?\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)/i.exec(text);
  let confidence: number | undefined;
  if (conf?.[1]) {
    // 0..1, or a percentage with its sign; anything else is not read as a confidence.
    const n = Number(conf[1]);
    confidence = conf[2] === '%' ? n / 100 : n;
    if (!(confidence >= 0 && confidence <= 1)) confidence = undefined;
  }
  return { role, text, ...(value !== undefined ? { value } : {}), ...(confidence !== undefined ? { confidence } : {}) };
}

/** Groups answers that agree: numbers within the tolerance of the group's first, texts equal once normalised. */
function groups(answers: readonly MemberAnswer[], tolerance: number): MemberAnswer[][] {
  const out: MemberAnswer[][] = [];
  const norm = (t: string) =>
    t
      .trim()
      .toLowerCase()
      .replace(/[.!\s]+$/, '')
      .replace(/\s+/g, ' ');
  for (const a of answers) {
    const home = out.find((g) => {
      const first = g[0]!;
      if (a.value !== undefined && first.value !== undefined) return relativeGap(a.value, first.value) <= tolerance;
      return a.value === undefined && first.value === undefined && norm(a.text) === norm(first.text);
    });
    if (home) home.push(a);
    else out.push([a]);
  }
  return out.sort((x, y) => y.length - x.length);
}

function relativeGap(a: number, b: number): number {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return scale === 0 ? 0 : Math.abs(a - b) / scale;
}

/**
 * Numeric answers further apart than the tolerance (seed 003: a mismatch above 5% is flagged),
 * with the members outside the largest agreeing group; null when they agree or are not all numbers.
 */
export function numericConflict(answers: readonly MemberAnswer[], tolerance: number): NumericConflict | null {
  const values = answers.map((a) => a.value);
  if (answers.length < 2 || values.some((v) => v === undefined)) return null;
  const nums = values as number[];
  const min = Math.min(...nums);
  const max = Math.max(...nums);
  const spread = relativeGap(min, max);
  if (spread <= tolerance) return null;
  const largest = groups(answers, tolerance)[0] ?? [];
  return { min, max, spread, tolerance, outliers: answers.filter((a) => !largest.includes(a)).map((a) => a.role) };
}

function mostConfident(answers: readonly MemberAnswer[]): MemberAnswer {
  return answers.reduce((best, a) => ((a.confidence ?? 0.5) > (best.confidence ?? 0.5) ? a : best));
}

/**
 * Resolves the answers by `majority` (the largest agreeing group; a tie falls back to the most
 * confident of the tied answers) or `confidence` (the most confident answer; equal confidence:
 * the first member). The arbiter strategy is decided by a role (committee.ts).
 */
export function resolveAnswers(
  strategy: 'majority' | 'confidence',
  answers: readonly MemberAnswer[],
  tolerance: number,
): Resolution {
  const conflict = numericConflict(answers, tolerance);
  if (strategy === 'confidence') {
    const best = mostConfident(answers);
    return {
      answer: best.text,
      ...(best.value !== undefined ? { value: best.value } : {}),
      decidedBy: 'confidence',
      winners: [best.role],
      conflict,
    };
  }
  const ranked = groups(answers, tolerance);
  const top = ranked[0]!;
  const tied = ranked.filter((g) => g.length === top.length);
  if (tied.length > 1) {
    const best = mostConfident(tied.flat());
    return {
      answer: best.text,
      ...(best.value !== undefined ? { value: best.value } : {}),
      decidedBy: 'majority-tie→confidence',
      winners: [best.role],
      conflict,
    };
  }
  const first = top[0]!;
  return {
    answer: first.text,
    ...(first.value !== undefined ? { value: first.value } : {}),
    decidedBy: 'majority',
    winners: top.map((a) => a.role),
    conflict,
  };
}
