import { useState, type FormEvent } from 'react';

/** A form edited as a draft and applied on submit: what the page shows follows `applied` only. */
export function useDraft<T>(initial: T | (() => T)): { applied: T; draft: T; setDraft: (draft: T) => void; apply: (event: FormEvent) => void } {
  const [applied, setApplied] = useState(initial);
  const [draft, setDraft] = useState(applied);
  const apply = (event: FormEvent): void => {
    event.preventDefault();
    setApplied(draft);
  };
  return { applied, draft, setDraft, apply };
}
