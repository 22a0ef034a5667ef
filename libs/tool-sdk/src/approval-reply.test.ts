import { describe, expect, it } from 'vitest';
import { readApprovalReply } from './approval-reply.js';

describe('readApprovalReply', () => {
  it.each([
    'yes',
    'Yes!',
    'y',
    'ok',
    'OK.',
    'okay thanks',
    'approve',
    'Approved',
    'confirm',
    'sure',
    'go ahead',
    'Go ahead, please',
    'do it',
    'yes please',
    'yep, send it',
    'lgtm',
    '👍 yes',
  ])('approves "%s"', (text) => expect(readApprovalReply(text)).toEqual({ decision: 'approve' }));

  it.each([
    'no',
    'No.',
    'nope',
    'cancel',
    'Cancel it',
    'stop',
    'abort',
    "don't",
    "Don't do it",
    'never mind',
    'no thanks',
    'no, cancel',
  ])('cancels "%s"', (text) => expect(readApprovalReply(text)).toEqual({ decision: 'cancel' }));

  it.each([
    '',
    '   ',
    'maybe',
    'yes but change the subject',
    'no, send it to bob instead',
    'yes no',
    'what does it say?',
    'send it to bob@example.com',
    'ok ok ok ok ok ok ok ok ok',
    'not ok',
  ])('leaves "%s" undecided', (text) => expect(readApprovalReply(text)).toBeUndefined());
});
