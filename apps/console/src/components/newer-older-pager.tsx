import type { Dispatch, SetStateAction } from 'react';

/**
 * Newer / Older buttons over a listing paged by a `before` cursor: `before` is the stack of cursors
 * that led to this page, `nextBefore` the cursor of the next older page (null on the last).
 */
export function NewerOlderPager({
  before,
  nextBefore,
  setBefore,
}: {
  before: readonly number[];
  nextBefore: number | null;
  setBefore: Dispatch<SetStateAction<number[]>>;
}) {
  return (
    <div className="pager">
      <button
        type="button"
        className="secondary"
        disabled={before.length === 0}
        onClick={() => setBefore((b) => b.slice(0, -1))}
      >
        Newer
      </button>
      <button
        type="button"
        className="secondary"
        disabled={nextBefore === null}
        onClick={() => nextBefore !== null && setBefore((b) => [...b, nextBefore])}
      >
        Older
      </button>
    </div>
  );
}
