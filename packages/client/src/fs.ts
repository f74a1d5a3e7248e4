/**
 * File-system helpers. Directory creation that always ends: Node's `mkdirSync(dir, { recursive: true })` loops forever
 * (a busy core, deaf to signals) when an ancestor is a pseudo filesystem that answers ENOENT to
 * every mkdir, such as /proc (`hcc up --state-dir /proc/x` hung). This walks up to the first
 * existing ancestor and creates each missing level once, so such a path fails with the
 * operating system's error instead.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates `dir` and its missing parents, as `mkdir -p`.
 * @param dir - the directory (relative paths resolve against the working directory)
 * @param mode - permission bits of the directories it creates (default 0o777 less the umask)
 * @throws the fs error (ENOENT, EACCES, ENOTDIR, EROFS, ...) naming the level that could not be created
 */
export function ensureDir(dir: string, mode?: number): void {
  const abs = resolve(dir);
  const missing: string[] = [];
  let at = abs;
  while (!existsSync(at)) {
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  if (existsSync(at) && !statSync(at).isDirectory()) {
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${missing[0] ?? abs}'`), { code: 'ENOTDIR', path: at });
  }
  for (const d of missing) {
    try {
      mkdirSync(d, mode === undefined ? undefined : { mode });
    } catch (e) {
      // Made meanwhile by someone else: fine, as mkdir -p.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(d).isDirectory()) throw e;
    }
  }
}

/**
 * Writes `data` to `path` so that a reader sees the old content or the new one, never a part of
 * it: into a temporary file beside it, then a rename (atomic within one POSIX filesystem). The
 * temporary file is removed when the write fails.
 * @param mode - permission bits of the file, set whatever the umask (default: 0o666 less the umask)
 * @throws the fs error of the write or the rename
 */
export function writeFileAtomic(path: string, data: string | Buffer, mode?: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // never made, or already renamed
    }
    throw e;
  }
}
