import { z } from 'zod';

/**
 * What a message does when its conversation has a run in flight (docs/conversations.md, "Sending
 * while a run is in flight"): wait its turn (`enqueue`, the default), be refused (`reject`), stop
 * the run at its next step boundary and follow it (`interrupt`), withdraw the run and take its
 * place (`rollback`), or join the running loop before its next model call (`steer`).
 */
export const MultitaskPolicy = z.enum(['enqueue', 'reject', 'interrupt', 'rollback', 'steer']);
export type MultitaskPolicy = z.infer<typeof MultitaskPolicy>;
