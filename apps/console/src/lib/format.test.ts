import { describe, expect, it } from 'vitest';
import { formatCountdown, formatDuration, formatProtocol, plural, prettyJson, traceLink } from './format.js';

describe('format', () => {
  it('writes durations for people', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4_210)).toBe('4.2 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
  });

  it('counts down to an expiry, and says when it passed', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(formatCountdown('2026-11-27T10:29:05Z', now)).toBe('29:05');
    expect(formatCountdown('2026-11-27T12:00:01Z', now)).toBe('2:00:01');
    expect(formatCountdown('2026-11-27T09:59:59Z', now)).toBe('expired');
    expect(formatCountdown('not a time', now)).toBe('unknown');
    expect(formatCountdown(null, now)).toBe('never');
  });

  it('links a trace through the template, or not at all', () => {
    expect(traceLink('http://jaeger:16686/trace/{traceId}', 'abc123')).toBe('http://jaeger:16686/trace/abc123');
    expect(traceLink('', 'abc123')).toBeUndefined();
    expect(traceLink('http://x/{traceId}', null)).toBeUndefined();
  });

  it('counts in words', () => {
    expect(plural(1, 'instance')).toBe('1 instance');
    expect(plural(3, 'instance')).toBe('3 instances');
  });

  it('pretty-prints JSON and leaves other text alone', () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('plain words')).toBe('plain words');
  });
});

describe('formatProtocol', () => {
  it('names each protocol as people do, and none as a dash', () => {
    expect(formatProtocol('chat_completions')).toBe('Chat Completions');
    expect(formatProtocol('ag_ui')).toBe('AG-UI');
    expect(formatProtocol('rest')).toBe('REST API');
    expect(formatProtocol(null)).toBe('—');
    expect(formatProtocol(undefined)).toBe('—');
  });
});
