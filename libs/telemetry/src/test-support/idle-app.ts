// Ends one span, prints `ready`, then idles like a server with no SIGTERM handler of its own.
// With a long OTEL_BSP_SCHEDULE_DELAY the span can only reach the collector through the signal flush.
import { withSpan } from '../index.js';

await withSpan('fixture', 'before-sigterm', {}, () => undefined);
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
