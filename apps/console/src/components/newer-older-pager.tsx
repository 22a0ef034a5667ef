import type { Dispatch, SetStateAction } from 'react';

/**
 * Newer / Older buttons over a listing paged by a `before` cursor: `before` is the stack of cursors
 * that led to this page, `nextBefore` the cursor of the next older page (null on the last); a
 * cursor is a number (a seq) or an opaque page token.
 */
export function NewerOlderPager<Cursor extends number | string = number>({
  before,
  nextBefore,
  setBefore,
}: {
  before: readonly Cursor[];
  nextBefore: Cursor | null;
  setBefore: Dispatch<SetStateAction<Cursor[]>>;
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
