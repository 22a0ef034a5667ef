/**
 * SQL for "collection is `prefix` or below it" on whole ":"-separated segments, as one predicate on
 * the `collection` column; `$n` is the prefix parameter ('' = every collection). LIKE is avoided:
 * collection names may hold "_", which LIKE treats as a wildcard.
 */
export function collectionPrefixSql(param: string, column = 'collection'): string {
  return `(${param}::text = '' OR ${column} = ${param}::text OR left(${column}, length(${param}::text) + 1) = ${param}::text || ':')`;
}
