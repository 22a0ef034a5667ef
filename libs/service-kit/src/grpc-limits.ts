/**
 * The largest gRPC message the platform's clients and servers send or accept (grpc-js accepts only
 * 4 MiB by default). A turn's appended messages (up to MAX_TOOL_CALLS_PER_TURN tool results of
 * up to TOOL_MAX_RESULT_BYTES each) and a page of history (MEMORY_MAX_PAGE_BYTES) fit in it.
 */
export const GRPC_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
