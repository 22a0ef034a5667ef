import { createLogger } from '@platform/service-kit';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ForegroundActivity } from '../ingestion/foreground-activity.js';
import { RecallEngine, type RecallSettings } from './recall-engine.js';

describe('a recall counts as foreground work', () => {
  it('while it runs, and no longer once it has settled, however it ended', async () => {
    const foreground = new ForegroundActivity();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // A pool whose statements wait until released, then fail: the recall runs until then.
    const pool = {
      query: async () => {
        await held;
        throw new Error('database unavailable');
      },
    } as unknown as pg.Pool;
    const engine = new RecallEngine(
      pool,
      undefined,
      { perTermCandidates: 200, commonTermsRefreshMs: 0, trigramWords: 6, candidates: 50 } as RecallSettings,
      createLogger({ service: 'test', level: 'silent' }),
      { foreground },
    );
    const recall = engine.recall({
      tenantId: 't',
      query: 'where does Alice live',
      collectionPrefix: '',
      limit: 8,
      tokenBudget: 0,
      conversationId: '',
      includeEpisodes: true,
    });
    expect(foreground.running).toBe(1);
    let quiet = false;
    const waiting = foreground.quiet(30_000).then(() => (quiet = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(quiet).toBe(false);
    release();
    await expect(recall).rejects.toThrow('database unavailable');
    await waiting;
    expect(foreground.running).toBe(0);
  });
});
