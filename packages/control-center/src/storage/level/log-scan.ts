/**
 * Damage in a LevelDB data dir that LevelDB itself does not report when it opens it, found before
 * it opens it (it then rewrites the logs into tables and deletes them, and a missing `CURRENT`
 * makes it start a new, empty database over the old files).
 *
 * LevelDB's log format: 32 KiB blocks of records, each a 7-byte header (masked CRC32C: 4 bytes,
 * length: 2 bytes little-endian, type: 1 byte, FULL=1 FIRST=2 MIDDLE=3 LAST=4) and its payload; a
 * block's last 1–6 bytes, too few for a header, are zeros. The reader skips a header of type 0
 * and length 0 (whatever its checksum bytes) and the rest of its block *without reporting a drop*, since LevelDB's mmap writer
 * preallocates zeroed regions at the end of a log. hcc's writer (posix, appending) never leaves
 * such a header before later data, so zeros at a record boundary with data after them are records
 * overwritten with zeros (a disk or file system that lost them): the acknowledged writes in them
 * would be dropped silently, and an object deleted there would come back.
 * @see https://github.com/google/leveldb/blob/main/doc/log_format.md
 * @see https://github.com/google/leveldb/blob/main/db/log_reader.cc (ReadPhysicalRecord: "Skip zero length record without reporting any drops")
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** LevelDB's log block size, in bytes. */
const BlockSize = 32 * 1024;
/** A log record's header size, in bytes. */
const HeaderSize = 7;
/** Record types: FULL, FIRST, MIDDLE, LAST. */
const MaxRecordType = 4;

/**
 * Where a LevelDB log file holds a zeroed record header with data after it in the file (see the
 * module comment), or undefined when it does not.
 * @param log - the whole content of a `NNNNNN.log` file
 * @returns the byte offset of the zeroed header
 */
export function zeroedRecordOffset(log: Buffer): number | undefined {
  for (let block = 0; block < log.length; block += BlockSize) {
    const end = Math.min(block + BlockSize, log.length);
    let pos = block;
    while (pos + HeaderSize <= end) {
      const length = log.readUInt16LE(pos + 4);
      const type = log[pos + 6]!;
      // Its checksum is not read: a header zeroed from its length on (a sector boundary inside
      // it) is skipped the same way.
      if (type === 0 && length === 0) {
        // The reader drops the rest of this block silently: damage when anything follows it.
        for (let i = pos + HeaderSize; i < log.length; i++) if (log[i] !== 0) return pos;
        return undefined;
      }
      // A header LevelDB reports as corrupt (or a record running past its block) ends the walk
      // of this block; LevelDB's own report covers it.
      if (type < 1 || type > MaxRecordType || pos + HeaderSize + length > end) break;
      pos += HeaderSize + length;
    }
  }
  return undefined;
}

/**
 * The log files of a LevelDB data dir with zeroed records before later data, one finding each
 * (`000003.log: zeroed record at byte 393591 before later records`).
 * @param dir - the data dir
 */
export function zeroedLogFindings(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).filter((n) => /^\d+\.log$/.test(n)).sort()) {
    const at = zeroedRecordOffset(readFileSync(path.join(dir, name)));
    if (at !== undefined) out.push(`${name}: zeroed record at byte ${at} before later records (LevelDB skips such records without reporting them)`);
  }
  return out;
}

/**
 * Why a data dir without LevelDB's `CURRENT` file is not a new one (its MANIFEST, table or log
 * files are there): LevelDB would start an empty database and delete those files. Undefined when
 * `CURRENT` is there or the dir holds no database files.
 * @param dir - the data dir
 */
export function missingCurrent(dir: string): string | undefined {
  const names = readdirSync(dir);
  if (names.includes('CURRENT')) return undefined;
  const manifests = names.filter((n) => /^MANIFEST-\d+$/.test(n)).sort();
  const tables = names.filter((n) => /^\d+\.(ldb|sst)$/.test(n));
  const logs = names.filter((n) => /^\d+\.log$/.test(n));
  if (!manifests.length && !tables.length && !logs.length) return undefined;
  const restore = manifests.length ? `; if ${manifests.at(-1)} is intact, \`echo ${manifests.at(-1)} > ${path.join(dir, 'CURRENT')}\` restores it` : '';
  return `LevelDB's CURRENT file is missing while its files are there (${[...manifests, `${tables.length} table(s)`, `${logs.length} log(s)`].join(', ')}): opening would start an empty database over them${restore}`;
}
