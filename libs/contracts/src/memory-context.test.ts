import { describe, expect, it } from 'vitest';
import {
  MEMORY_CONTEXT_CLOSE,
  MEMORY_CONTEXT_OPEN,
  memoryContextItems,
  renderMemoryContext,
} from './memory-context.js';

describe('memory context block', () => {
  it('renders delimited items and reads them back', () => {
    const block = renderMemoryContext(['user prefers window seats', 'user lives_in\nBerlin']);
    expect(block.split('\n')[0]).toBe(MEMORY_CONTEXT_OPEN);
    expect(block.split('\n').at(-1)).toBe(MEMORY_CONTEXT_CLOSE);
    expect(memoryContextItems(`You are helpful.\n\n${block}\n- not an item`)).toEqual([
      'user prefers window seats',
      'user lives_in Berlin',
    ]);
  });

  it('finds nothing in text without a block', () => {
    expect(memoryContextItems('- just a list\n- of things')).toEqual([]);
  });
});
