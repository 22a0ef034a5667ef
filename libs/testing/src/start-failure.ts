/** What a service logged when it could not listen (service-kit's `ListenError`). */
export interface LoggedListenFailure {
  code: string;
  address: string;
  setting: string;
  message: string;
}

/** The `ListenError` in a service's output (its fatal JSON log line), if it failed to listen. */
export function listenFailureIn(output: string): LoggedListenFailure | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('ListenError')) continue;
    const start = line.indexOf('{');
    if (start < 0) continue;
    try {
      const err = (JSON.parse(line.slice(start)) as { err?: Partial<LoggedListenFailure> & { type?: string } }).err;
      if (err?.type === 'ListenError' && err.address && err.setting && err.message && err.code)
        return { code: err.code, address: err.address, setting: err.setting, message: err.message };
    } catch {
      // not a log line
    }
  }
  return undefined;
}

/**
 * The launcher's account of a failed listen: the app, the address it could not bind and the
 * variable that moves it (the launcher's own, e.g. `MEMORY_PORT`, when it has one; else the
 * service's, e.g. `GRPC_PORT`).
 */
export function describeListenFailure(
  app: string,
  failure: LoggedListenFailure,
  launcherVariable: string | undefined,
): string {
  // The logged message ends with the library's own words (its cause); the launcher leaves them to the log.
  const [what] = failure.message.split(`; set ${failure.setting} `);
  return `${app} ${what}; set ${launcherVariable ?? failure.setting} to another port to move it`;
}
