import type { ApprovalDecision } from '@platform/contracts';

/** A decision read from the user's reply to an approval request. */
export interface ApprovalReply {
  decision: ApprovalDecision;
  /** For `edit`: the fields to change. */
  changes?: Record<string, unknown>;
}

/** Whole replies that clearly mean one thing, after normalisation (lower case, no punctuation). */
const APPROVE_PHRASES = new Set([
  'go ahead',
  'do it',
  'send it',
  'go for it',
  'sounds good',
  'looks good',
  'all good',
  'of course',
]);
const CANCEL_PHRASES = new Set([
  'never mind',
  'dont do it',
  'do not do it',
  'forget it',
  'dont send it',
  'do not send it',
]);

const APPROVE_WORDS = new Set([
  'yes',
  'y',
  'yeah',
  'yep',
  'yup',
  'sure',
  'ok',
  'okay',
  'k',
  'approve',
  'approved',
  'confirm',
  'confirmed',
  'proceed',
  'lgtm',
  'fine',
  'correct',
  'right',
  'ahead',
  'good',
]);
const CANCEL_WORDS = new Set([
  'no',
  'n',
  'nope',
  'nah',
  'cancel',
  'cancelled',
  'canceled',
  'stop',
  'abort',
  'dont',
  'not',
  'never',
  'nevermind',
  'reject',
  'rejected',
  'deny',
  'denied',
]);
/** Words that carry no decision: "yes please", "ok thanks", "no, cancel it". */
const FILLER_WORDS = new Set([
  'please',
  'pls',
  'thanks',
  'thank',
  'you',
  'it',
  'that',
  'this',
  'just',
  'and',
  'the',
  'action',
  'do',
  'go',
  'all',
  'is',
  'sounds',
  'looks',
  'send',
]);

/** Longer replies are left to the caller (or a custom reader): they usually say more than yes or no. */
const MAX_WORDS = 8;

/**
 * The default reader of a free-text answer to an approval request. A short, clear yes ("yes",
 * "ok", "approve", "go ahead", "yes please") approves; a clear no ("no", "cancel", "stop",
 * "never mind") cancels. Anything else, including mixed or longer replies ("yes but change the
 * subject"), is `undefined`: the agent asks again. It never returns `edit`, since it cannot read
 * changes; callers pass `decision: 'edit'` with `changes` for that.
 */
export function readApprovalReply(text: string): ApprovalReply | undefined {
  const normalised = text
    .toLowerCase()
    .replace(/[\u2018\u2019']/g, '')
    .replace(/[^a-z0-9\s]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!normalised) return undefined;
  if (APPROVE_PHRASES.has(normalised)) return { decision: 'approve' };
  if (CANCEL_PHRASES.has(normalised)) return { decision: 'cancel' };
  const words = normalised.split(' ');
  if (words.length > MAX_WORDS) return undefined;
  let approve = false;
  let cancel = false;
  for (const word of words) {
    if (APPROVE_WORDS.has(word)) approve = true;
    else if (CANCEL_WORDS.has(word)) cancel = true;
    else if (!FILLER_WORDS.has(word)) return undefined;
  }
  if (approve === cancel) return undefined;
  return { decision: approve ? 'approve' : 'cancel' };
}
