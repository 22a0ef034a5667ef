import { useState, type FormEvent } from 'react';

/**
 * A form edited as a draft and applied on submit: what the page shows follows `applied` only.
 * Submitting the same values again calls `refresh` (the page loads them again).
 */
export function useDraft<T>(initial: T | (() => T)): {
  applied: T;
  draft: T;
  setDraft: (draft: T) => void;
  apply: (event: FormEvent, refresh: () => void) => void;
} {
  const [applied, setApplied] = useState(initial);
  const [draft, setDraft] = useState(applied);
  const apply = (event: FormEvent, refresh: () => void): void => {
    event.preventDefault();
    if (JSON.stringify(draft) === JSON.stringify(applied)) refresh();
    else setApplied(draft);
  };
  return { applied, draft, setDraft, apply };
}
