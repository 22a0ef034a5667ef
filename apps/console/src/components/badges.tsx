/** A status as a labelled badge; the colour only repeats what the text says. */
export function StatusBadge({ status }: { status: string | null | undefined }) {
  const value = status ?? 'unknown';
  return <span className={`badge badge-${value.replace(/[^a-z_]/gi, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

/** JSON (or text) in a scrollable, labelled block. */
export function CodeBlock({ label, text }: { label: string; text: string }) {
  return (
    <figure className="code">
      <figcaption>{label}</figcaption>
      <pre tabIndex={0}>{text}</pre>
    </figure>
  );
}
