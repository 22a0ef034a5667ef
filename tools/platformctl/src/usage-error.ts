/** A command line the CLI cannot run (exit code 2). */
export class UsageError extends Error {}
