import type { RunEvents } from '../events/run-event-reader.js';

/** For HTTP-edge tests that never stream: any use of run events fails the test loudly. */
export const noEvents: RunEvents = {
  lastId: () => Promise.reject(new Error('run events are not available in this test')),
  // eslint-disable-next-line require-yield
  read: async function* () {
    throw new Error('run events are not available in this test');
  },
};
