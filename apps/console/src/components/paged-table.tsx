import type { Dispatch, ReactNode, SetStateAction } from 'react';
import { NewerOlderPager } from './newer-older-pager.js';
import { DataTable } from './table.js';

/**
 * A page of a listing paged by a `before` cursor: what to show when it is empty, else its rows in a
 * table (caption for screen readers) over Newer / Older buttons.
 */
export function PagedTable<Row, Cursor extends number | string = number>({
  rows,
  empty,
  caption,
  columns,
  row,
  before,
  nextBefore,
  setBefore,
}: {
  rows: readonly Row[];
  empty: ReactNode;
  caption: string;
  columns: readonly ReactNode[];
  row: (row: Row) => ReactNode;
  before: readonly Cursor[];
  nextBefore: Cursor | null;
  setBefore: Dispatch<SetStateAction<Cursor[]>>;
}) {
  if (rows.length === 0) return <>{empty}</>;
  return (
    <>
      <DataTable caption={caption} captionHidden columns={columns}>
        {rows.map(row)}
      </DataTable>
      <NewerOlderPager before={before} nextBefore={nextBefore} setBefore={setBefore} />
    </>
  );
}
