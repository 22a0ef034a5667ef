import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { copyFile, link, mkdir, readdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';

/** Where a PostgreSQL installation keeps what the server loads at run time, as `pg_config` reports it. */
export interface PostgresInstallation {
  bindir: string;
  sharedir: string;
  pkglibdir: string;
}

/**
 * Asks `pg_config` next to `postgresBinary` (symbolic links resolved, as PostgreSQL itself does);
 * falls back to Debian's layout when `pg_config` is not installed.
 */
export function describeInstallation(postgresBinary: string): PostgresInstallation {
  const bindir = path.dirname(realpathSync(postgresBinary));
  const pgConfig = path.join(bindir, 'pg_config');
  if (existsSync(pgConfig)) {
    const [sharedir, pkglibdir] = execFileSync(pgConfig, ['--sharedir', '--pkglibdir'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    if (sharedir && pkglibdir) return { bindir, sharedir, pkglibdir };
  }
  const version = path.basename(path.dirname(bindir));
  return { bindir, sharedir: `/usr/share/postgresql/${version}`, pkglibdir: path.join(path.dirname(bindir), 'lib') };
}

/** True when the installation holding `postgresBinary` has `<name>.control` in its extension folder. */
export function extensionInstalled(postgresBinary: string, name: string): boolean {
  return existsSync(path.join(describeInstallation(postgresBinary).sharedir, 'extension', `${name}.control`));
}

/**
 * Builds, under `root`, a view of the PostgreSQL installation in which the named extensions are not
 * installed, and returns the `postgres` binary to start from it.
 *
 * PostgreSQL finds its share and library folders relative to its own executable (it is
 * relocatable), so a hard link (or copy) of the binary at `<root>/<same absolute path>` reads
 * `<root>/<sharedir>`: a tree of symbolic links to the real files, minus the hidden extensions'
 * control and script files. The server then behaves exactly as on a machine where they were never
 * installed: `pg_available_extensions` omits them and `CREATE EXTENSION` fails with PostgreSQL's
 * own "is not available" error.
 */
export async function installationWithout(
  postgresBinary: string,
  hiddenExtensions: readonly string[],
  root: string,
): Promise<string> {
  const real = await realpath(postgresBinary);
  const install = describeInstallation(real);
  const binary = path.join(root, real);
  await mkdir(path.dirname(binary), { recursive: true });
  await link(real, binary).catch(() => copyFile(real, binary));

  const sharedir = path.join(root, install.sharedir);
  await mkdir(path.join(sharedir, 'extension'), { recursive: true });
  for (const entry of await readdir(install.sharedir)) {
    if (entry !== 'extension') await symlink(path.join(install.sharedir, entry), path.join(sharedir, entry));
  }
  const hidden = (file: string) =>
    hiddenExtensions.some((name) => file === `${name}.control` || file.startsWith(`${name}--`));
  for (const entry of await readdir(path.join(install.sharedir, 'extension'))) {
    if (!hidden(entry))
      await symlink(path.join(install.sharedir, 'extension', entry), path.join(sharedir, 'extension', entry));
  }

  const pkglibdir = path.join(root, install.pkglibdir);
  if (!existsSync(pkglibdir)) {
    await mkdir(path.dirname(pkglibdir), { recursive: true });
    await symlink(install.pkglibdir, pkglibdir);
  }
  return binary;
}
