import type { ChatMessage } from './chat-request.js';
import {
  contentText,
  isPlatformResumedExchange,
  isTurnStartingUserMessage,
  latestTurnStartIndex,
} from './conversation.js';
import { findScenarioMarker, findScenarioMarkerMessage, SCENARIO_MARKER } from './scenario-markers.js';
import { scenarioTurns, type Scenario, type ScenarioStep } from './scenario-schema.js';

/** Outcome of scenario selection. */
export type ScenarioSelection =
  { ok: true; scenario: Scenario } | { ok: false; requested: string; available: string[] };

const PERSONA_MARKER = /\[persona-scenario:([A-Za-z0-9._-]+)\]/;

/**
 * The scenario named by a `[persona-scenario:<name>]` marker in the first system message, used
 * when no user message carries a `[scenario:…]` marker: an agent profile's persona can name its
 * scripted model (e.g. the roles of a committee, all asked the same question). A plain
 * `[scenario:…]` in a system prompt is ignored (recalled memories quote conversation text there).
 */
function findPersonaScenarioMarker(messages: readonly ChatMessage[]): string | undefined {
  const system = messages.find((m) => m.role === 'system');
  return system ? PERSONA_MARKER.exec(contentText(system.content))?.[1] : undefined;
}

/** Picks the scenario by marker (a user message's, else the persona's), falling back to `defaultName`. */
export function selectScenario(
  messages: readonly ChatMessage[],
  scenarios: ReadonlyMap<string, Scenario>,
  defaultName: string,
): ScenarioSelection {
  const requested = findScenarioMarker(messages) ?? findPersonaScenarioMarker(messages) ?? defaultName;
  const scenario = scenarios.get(requested);
  if (scenario) return { ok: true, scenario };
  return { ok: false, requested, available: [...scenarios.keys()].sort() };
}

/**
 * Which turn of the scenario the conversation is in: the number of turn-starting user messages
 * after the user message carrying the scenario's marker (that message is turn 0). Without a marker
 * (default scenario) the first turn-starting user message is turn 0.
 */
export function turnIndexOf(messages: readonly ChatMessage[]): number {
  const marker = findScenarioMarkerMessage(messages);
  const anchor = marker ? firstMarkerOfRun(messages, marker) : messages.findIndex(isTurnStartingUserMessage);
  if (anchor < 0) return 0;
  return messages.slice(anchor + 1).filter(isTurnStartingUserMessage).length;
}

/**
 * Where a scenario's turn 0 is: a later message repeating the same marker continues the scenario
 * (it may carry the marker to steer a side request, e.g. a reply mapped to approval decisions),
 * so the anchor is the earliest message of the latest unbroken run of that scenario's markers.
 */
function firstMarkerOfRun(messages: readonly ChatMessage[], latest: { index: number; name: string }): number {
  let anchor = latest.index;
  for (let i = latest.index - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'user') continue;
    const name = [...contentText(message.content).matchAll(SCENARIO_MARKER)].map((m) => m[1]).at(-1);
    if (name === undefined) continue;
    if (name !== latest.name) break;
    anchor = i;
  }
  return anchor;
}

/**
 * How far into the current turn the conversation is: the number of assistant messages after the
 * latest turn-starting user message (all assistant messages when no user message starts a turn).
 * Exchanges the platform added itself (tool-call ids ending in `:resumed`) are not model steps and
 * do not count.
 */
export function stepIndexOf(messages: readonly ChatMessage[]): number {
  const start = latestTurnStartIndex(messages);
  return messages.slice(start + 1).filter((m) => m.role === 'assistant' && !isPlatformResumedExchange(m)).length;
}

/** The step to serve for an index, after applying the scenario's `whenExhausted` policy. */
export type StepResolution =
  { ok: true; step: ScenarioStep; replayed: boolean; turn: number } | { ok: false; turn: number; stepCount: number };

/**
 * Maps a turn and step index onto the scenario. A turn index past the last turn uses the last turn
 * (so a `steps` scenario serves its steps in every turn). Past the steps of a turn the last step is
 * replayed, except that in the last turn `whenExhausted: "error"` makes it a failure instead.
 */
export function resolveStep(scenario: Scenario, stepIndex: number, turnIndex = 0): StepResolution {
  const turns = scenarioTurns(scenario);
  const turn = Math.min(Math.max(turnIndex, 0), turns.length - 1);
  const steps = turns[turn]?.steps ?? [];
  const step = steps[stepIndex];
  if (step) return { ok: true, step, replayed: false, turn };
  const last = steps.at(-1);
  const isLastTurn = turn === turns.length - 1;
  if (!last || (isLastTurn && scenario.whenExhausted === 'error')) return { ok: false, turn, stepCount: steps.length };
  return { ok: true, step: last, replayed: true, turn };
}
