import { describe, expect, it } from 'vitest';
import { filtersFromSearch, NO_FILTERS, runListQuery, searchOfFilters } from './run-filters.js';

describe('run filters', () => {
  it('round-trip through the URL, empty ones left out', () => {
    const filters = { ...NO_FILTERS, conversationId: 'trip-42', status: ['failed', 'running'], tool: 'calculator' };
    const search = searchOfFilters(filters);
    expect(search).toBe('?conversationId=trip-42&status=failed%2Crunning&tool=calculator');
    expect(filtersFromSearch(search)).toEqual(filters);
    expect(searchOfFilters(NO_FILTERS)).toBe('');
  });

  it('accept repeated status parameters', () => {
    expect(filtersFromSearch('?status=failed&status=waiting').status).toEqual(['failed', 'waiting']);
  });

  it('become the api query, with times in ISO 8601 and the page', () => {
    const query = runListQuery(
      { ...NO_FILTERS, status: ['failed'], createdAfter: '2026-11-27T10:00', conversationId: '  ' },
      'tok',
      10,
    );
    expect(query).toMatchObject({ status: 'failed', pageSize: 10, pageToken: 'tok', conversationId: undefined });
    expect(query['createdAfter']).toBe(new Date('2026-11-27T10:00').toISOString());
    expect(runListQuery(NO_FILTERS)['createdAfter']).toBeUndefined();
  });

  it('pass a known protocol on and drop one the api does not take', () => {
    expect(runListQuery({ ...NO_FILTERS, protocol: 'mcp' })['protocol']).toBe('mcp');
    expect(runListQuery({ ...NO_FILTERS, protocol: 'gopher' })['protocol']).toBeUndefined();
    expect(filtersFromSearch('?protocol=a2a').protocol).toBe('a2a');
  });
});
