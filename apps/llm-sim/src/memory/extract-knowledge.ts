import { candidatesOf, turnLinesOf, type CandidateLine, type TurnLine } from './turn-lines.js';

/**
 * A deterministic "extraction model": simple English patterns over the user's messages of a turn,
 * producing the JSON the memory service's `memory_extraction` schema asks for. Only what a pattern
 * recognises is extracted; the assistant's words are ignored, tool results contribute entities.
 */

interface SimEntity {
  name: string;
  type: string;
  facets: Record<string, string>;
  fromTool: boolean;
}
interface SimFact {
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  sourceSeq: number;
  singleValued: boolean;
  supersedes: string[];
}
interface SimPreference {
  subject: string;
  topic: string;
  value: string;
  confidence: number;
  sourceSeq: number;
  supersedes: string[];
}
export interface SimExtraction {
  entities: SimEntity[];
  facts: SimFact[];
  preferences: SimPreference[];
  topics: string[];
  episodeSummary: string;
}

/** Confidence of a statement the user made about themselves in plain words. */
const STATED_CONFIDENCE = 0.9;
const SUMMARY_CHARS = 300;

// An object runs to the end of its clause: punctuation, a conjunction that starts a new one, or a
// time phrase ("... to Berlin last month").
const OBJECT = String.raw`(.+?)(?=\s*(?:[.,;!?]|\b(?:and|but|because|so|last|next|since|ago|yesterday|today|tomorrow)\b|$))`;
// "I" or a capitalised name (one or two words) as the subject of a third-person statement.
const SUBJECT = String.raw`(I|(?!(?:We|They|You|He|She|It|This|That|There)\b)[A-Z][\p{L}'-]+(?: [A-Z][\p{L}'-]+)?)`;

interface Pattern {
  regex: RegExp;
  apply(match: RegExpExecArray, emit: Emitter): void;
}

interface Emitter {
  fact(subject: string, predicate: string, object: string, singleValued: boolean, objectType?: string): void;
  preference(topic: string, value: string): void;
  entity(name: string, type: string): void;
}

const subjectOf = (word: string | undefined) => (word === undefined || word === 'I' ? 'user' : word);

const PATTERNS: Pattern[] = [
  {
    regex: new RegExp(String.raw`\b(?:my name is|i am called|i'm called|call me)\s+${OBJECT}`, 'giu'),
    apply: (m, emit) => emit.fact('user', 'name', m[1] ?? '', true, 'person'),
  },
  {
    regex: new RegExp(String.raw`\b${SUBJECT}\s+(?:just\s+|recently\s+)?moved from\s+(.+?)\s+to\s+${OBJECT}`, 'gu'),
    apply: (m, emit) => {
      emit.entity(m[2] ?? '', 'place');
      emit.fact(subjectOf(m[1]), 'lives_in', m[3] ?? '', true, 'place');
    },
  },
  {
    regex: new RegExp(
      String.raw`\b${SUBJECT}\s+(?:now\s+|still\s+|currently\s+)?(?:live|lives|am living|is living)\s+in\s+${OBJECT}`,
      'gu',
    ),
    apply: (m, emit) => emit.fact(subjectOf(m[1]), 'lives_in', m[2] ?? '', true, 'place'),
  },
  {
    regex: new RegExp(
      String.raw`\b${SUBJECT}\s+(?:now\s+)?(?:work|works|am working|is working)\s+(?:at|for)\s+${OBJECT}`,
      'gu',
    ),
    apply: (m, emit) => emit.fact(subjectOf(m[1]), 'works_at', m[2] ?? '', true, 'organisation'),
  },
  {
    regex: new RegExp(String.raw`\bmy (?:favou?rite)\s+([\p{L} ]+?)\s+is\s+${OBJECT}`, 'giu'),
    apply: (m, emit) => emit.preference(m[1] ?? '', m[2] ?? ''),
  },
  {
    regex: new RegExp(String.raw`\bi(?: would|'d)?\s+(?:always\s+|really\s+)?prefer\s+${OBJECT}`, 'giu'),
    apply: (m, emit) => {
      const value = (m[1] ?? '').replace(/\s+(?:over|to|rather than)\s+.*$/i, '');
      emit.preference(topicOf(value), value);
    },
  },
  {
    regex: new RegExp(String.raw`\bi\s+(?:don't|do not)\s+like\s+${OBJECT}|\bi\s+(?:dislike|hate)\s+${OBJECT}`, 'giu'),
    apply: (m, emit) => emit.fact('user', 'dislikes', m[1] ?? m[2] ?? '', false),
  },
  {
    regex: new RegExp(String.raw`\bi\s+(?:really\s+)?(?:like|love|enjoy)\s+${OBJECT}`, 'giu'),
    apply: (m, emit) => emit.fact('user', 'likes', m[1] ?? '', false),
  },
  {
    regex: new RegExp(String.raw`\bi(?: am|'m) allergic to\s+${OBJECT}`, 'giu'),
    apply: (m, emit) => emit.fact('user', 'allergic_to', m[1] ?? '', false),
  },
];

/** "window seats" → "seat": the thing a preference is about, so a later one can replace it. */
function topicOf(value: string): string {
  const head = value.trim().split(/\s+(?:on|for|in|at|when|during|with|from)\s+/i)[0] ?? value;
  const last = head.split(/\s+/).at(-1) ?? head;
  return last.toLowerCase().replace(/(?<=[a-z]{3})s$/, '');
}

const clean = (text: string) =>
  text
    .replace(/\[[a-z-]+:[^\]]*\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Ids of current facts `subject predicate <other object>` that a single-valued fact replaces. */
function supersededBy(
  candidates: readonly CandidateLine[],
  subject: string,
  predicate: string,
  object: string,
): string[] {
  const prefix = `${subject} ${predicate} `.toLowerCase();
  return candidates
    .filter((c) => c.text.toLowerCase().startsWith(prefix) && !same(c.text.slice(prefix.length), object))
    .map((c) => c.id);
}

/** Extracts knowledge from a `memory_extraction` prompt (the user message of the request). */
export function extractKnowledge(prompt: string): SimExtraction {
  const lines = turnLinesOf(prompt);
  const candidates = candidatesOf(prompt);
  const out: SimExtraction = { entities: [], facts: [], preferences: [], topics: [], episodeSummary: '' };
  const addEntity = (name: string, type: string, fromTool: boolean) => {
    const trimmed = clean(name);
    if (trimmed && !out.entities.some((e) => same(e.name, trimmed)))
      out.entities.push({ name: trimmed, type, facets: {}, fromTool });
  };
  for (const line of lines.filter((l) => l.role === 'user')) {
    const text = clean(line.text);
    const emit: Emitter = {
      fact(subject, predicate, object, singleValued, objectType) {
        const value = clean(object);
        if (
          !value ||
          out.facts.some((f) => same(f.subject, subject) && f.predicate === predicate && same(f.object, value))
        )
          return;
        if (subject !== 'user') addEntity(subject, 'person', false);
        if (objectType) addEntity(value, objectType, false);
        const supersedes = singleValued ? supersededBy(candidates, subject, predicate, value) : [];
        out.facts.push({
          subject,
          predicate,
          object: value,
          confidence: STATED_CONFIDENCE,
          sourceSeq: line.seq,
          singleValued,
          supersedes,
        });
      },
      preference(topic, value) {
        const t = clean(topic).toLowerCase();
        const v = clean(value);
        if (!t || !v) return;
        const supersedes = candidates
          .filter(
            (c) =>
              /^user prefer/i.test(c.text) &&
              c.text.toLowerCase().includes(t) &&
              !c.text.toLowerCase().includes(v.toLowerCase()),
          )
          .map((c) => c.id);
        out.preferences.push({
          subject: 'user',
          topic: t,
          value: v,
          confidence: STATED_CONFIDENCE,
          sourceSeq: line.seq,
          supersedes,
        });
      },
      entity: (name, type) => addEntity(name, type, false),
    };
    for (const pattern of PATTERNS) {
      pattern.regex.lastIndex = 0;
      for (const match of text.matchAll(pattern.regex)) pattern.apply(match, emit);
    }
  }
  for (const line of lines.filter((l) => l.role === 'tool'))
    toolEntities(line, (name, type) => addEntity(name, type, true));
  out.topics = [
    ...new Set([...out.facts.map((f) => f.predicate.replace(/_/g, ' ')), ...out.preferences.map((p) => p.topic)]),
  ].slice(0, 20);
  out.episodeSummary = summaryOf(lines);
  return out;
}

const TOOL_ENTITY_KEYS: Record<string, string> = {
  name: 'entity',
  city: 'place',
  place: 'place',
  country: 'place',
  company: 'organisation',
  organisation: 'organisation',
  organization: 'organisation',
  person: 'person',
};

/** Entities a tool result names in JSON fields such as `city` or `company` (seed 004's working memory). */
function toolEntities(line: TurnLine, add: (name: string, type: string) => void): void {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        const type = TOOL_ENTITY_KEYS[key.toLowerCase()];
        if (type && typeof inner === 'string' && inner.trim()) add(inner, type);
        else visit(inner);
      }
    }
  };
  try {
    visit(JSON.parse(line.text));
  } catch {
    // A tool result that is not JSON names no entities the simulator can see.
  }
}

/** One sentence on what the user said, or empty when the turn had no user text. */
function summaryOf(lines: readonly TurnLine[]): string {
  const said = lines
    .filter((l) => l.role === 'user')
    .map((l) => clean(l.text))
    .filter(Boolean);
  if (said.length === 0) return '';
  const text = said.join(' ');
  const cut = text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
  return `The user said: ${cut}`;
}
