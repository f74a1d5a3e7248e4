import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingCurrent, zeroedRecordOffset } from './log-scan.js';

/** A log record: header (CRC left 0xffffffff: the scan does not check it), length, type, payload. */
const record = (payload: number, type = 1): Buffer => {
  const b = Buffer.alloc(7 + payload, 0x61);
  b.writeUInt32LE(0xffffffff, 0);
  b.writeUInt16LE(payload, 4);
  b[6] = type;
  return b;
};

describe('zeroedRecordOffset', () => {
  it('finds a zeroed header with data after it, in the same block or a later one', () => {
    const a = record(100);
    expect(zeroedRecordOffset(Buffer.concat([a, Buffer.alloc(50), record(10)]))).toBe(a.length);
    // Zeros to the end of the first block, a record in the second.
    const first = Buffer.concat([a, Buffer.alloc(32768 - a.length)]);
    expect(zeroedRecordOffset(Buffer.concat([first, record(10)]))).toBe(a.length);
    // Only its length and type zeroed (a sector boundary inside the header): skipped the same way.
    const torn = Buffer.concat([a, Buffer.from([0xde, 0xad, 0xbe, 0xef]), Buffer.alloc(3), record(10)]);
    expect(zeroedRecordOffset(torn)).toBe(a.length);
  });

  it('leaves a log alone whose zeros are a tail (preallocated, cut short) or a block trailer under 7 bytes', () => {
    const a = record(100);
    expect(zeroedRecordOffset(Buffer.concat([a, Buffer.alloc(40_000)]))).toBeUndefined();
    expect(zeroedRecordOffset(Buffer.concat([a, record(10)]))).toBeUndefined();
    // A record filling the block but 5 bytes, the 5 zero bytes of trailer, then the next block.
    const filling = record(32768 - 7 - 5);
    expect(zeroedRecordOffset(Buffer.concat([filling, Buffer.alloc(5), record(10)]))).toBeUndefined();
    expect(zeroedRecordOffset(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('missingCurrent', () => {
  it('speaks up only for a data dir with database files and no CURRENT', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-logscan-'));
    try {
      expect(missingCurrent(dir)).toBeUndefined(); // a new data dir
      writeFileSync(path.join(dir, 'hcc-revision'), '5\n');
      expect(missingCurrent(dir)).toBeUndefined();
      writeFileSync(path.join(dir, 'MANIFEST-000004'), 'x');
      writeFileSync(path.join(dir, '000005.ldb'), 'x');
      expect(missingCurrent(dir)).toBe(
        `LevelDB's CURRENT file is missing while its files are there (MANIFEST-000004, 1 table(s), 0 log(s)): opening would start an empty database over them; if MANIFEST-000004 is intact, \`echo MANIFEST-000004 > ${path.join(dir, 'CURRENT')}\` restores it`,
      );
      writeFileSync(path.join(dir, 'CURRENT'), 'MANIFEST-000004\n');
      expect(missingCurrent(dir)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
