// One side of a NATS-style request, with the message headers crossing the process boundary as JSON.
// `request`: opens the requester span, prints `headers <json>`, ends the span and exits.
// `respond`: handles a message whose headers come from MESSAGE_HEADERS, then exits.
import { runInMessagingServerSpan, startMessagingClientSpan } from '../index.js';

const SUBJECT = 'tools.fixture';

if (process.argv[2] === 'request') {
  const outgoing = startMessagingClientSpan({ subject: SUBJECT });
  const headers: Record<string, string> = {};
  outgoing.inject((key, value) => (headers[key] = value));
  process.stdout.write(`headers ${JSON.stringify(headers)}\n`);
  outgoing.end();
} else {
  const headers = JSON.parse(process.env['MESSAGE_HEADERS'] ?? '{}') as Record<string, string>;
  await runInMessagingServerSpan({ subject: SUBJECT, getHeader: (key) => headers[key] }, () => undefined);
  process.stdout.write('handled\n');
}
