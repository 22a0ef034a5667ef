import type { ReactNode } from 'react';

/**
 * A data table that scrolls sideways on narrow screens: a caption (shown, or for screen readers
 * only), column headers, and the rows the caller renders.
 */
export function DataTable({
  caption,
  captionHidden = false,
  columns,
  children,
}: {
  caption: string;
  captionHidden?: boolean;
  columns: readonly ReactNode[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table>
        <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th scope="col" key={i}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
