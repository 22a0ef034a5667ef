import { access, readdir } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';

/** A server binary the launchers need, with the Debian package that provides it. */
export interface ServerBinary {
  readonly command: string;
  readonly debianPackage: string;
  /** Directories searched after PATH (distribution layouts that are not on PATH by default). */
  readonly extraDirs: () => Promise<string[]>;
}

export class MissingBinaryError extends Error {
  readonly code = 'MISSING_BINARY';
  constructor(
    readonly command: string,
    readonly debianPackage: string,
  ) {
    super(`'${command}' was not found on PATH; install it with: apt-get install -y ${debianPackage}`);
    this.name = new.target.name;
  }
}

async function postgresBinDirs(): Promise<string[]> {
  const root = '/usr/lib/postgresql';
  try {
    const versions = (await readdir(root)).sort((a, b) => Number(b) - Number(a));
    return versions.map((v) => path.join(root, v, 'bin'));
  } catch {
    return [];
  }
}

export const binaries = {
  natsServer: {
    command: 'nats-server',
    debianPackage: 'nats-server',
    extraDirs: () => Promise.resolve(['/usr/sbin', '/usr/local/bin']),
  },
  redisServer: {
    command: 'redis-server',
    debianPackage: 'redis-server',
    extraDirs: () => Promise.resolve(['/usr/sbin', '/usr/local/bin']),
  },
  postgres: { command: 'postgres', debianPackage: 'postgresql', extraDirs: postgresBinDirs },
  initdb: { command: 'initdb', debianPackage: 'postgresql', extraDirs: postgresBinDirs },
} satisfies Record<string, ServerBinary>;

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds a server binary on PATH or in its distribution directories, or fails naming the Debian package. */
export async function locateBinary(binary: ServerBinary): Promise<string> {
  const pathDirs = (process.env['PATH'] ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...pathDirs, ...(await binary.extraDirs())]) {
    const candidate = path.join(dir, binary.command);
    if (await isExecutable(candidate)) return candidate;
  }
  throw new MissingBinaryError(binary.command, binary.debianPackage);
}
