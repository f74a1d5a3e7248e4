import { describe, expect, it } from 'vitest';
import { LineSplitter } from './json-lines.js';

describe('LineSplitter', () => {
  it.each([
    { name: 'one line per chunk', input: ['{"a":1}\n', '{"b":2}\n'], want: ['{"a":1}', '{"b":2}'] },
    { name: 'several lines in one chunk', input: ['{"a":1}\n{"b":2}\n{"c":3}\n'], want: ['{"a":1}', '{"b":2}', '{"c":3}'] },
    { name: 'line split across chunks', input: ['{"a', '":', '1}\n{"b"', ':2}\n'], want: ['{"a":1}', '{"b":2}'] },
    { name: 'newline alone in a chunk', input: ['{"a":1}', '\n', '\n'], want: ['{"a":1}'] },
    { name: 'last line without newline', input: ['{"a":1}\n{"b":2}'], want: ['{"a":1}', '{"b":2}'] },
    { name: 'blank and CRLF lines', input: ['\n\r\n{"a":1}\r\n'], want: ['{"a":1}\r'] },
    { name: 'empty stream', input: [], want: [] },
  ])('$name', ({ input, want }) => {
    const s = new LineSplitter();
    const got = input.flatMap((c) => s.push(c));
    got.push(...s.end());
    expect(got.map((l) => l)).toEqual(want);
  });

  it('joins a long line split into many chunks once', () => {
    const line = JSON.stringify({ data: 'x'.repeat(100_000) });
    const s = new LineSplitter();
    const got: string[] = [];
    for (let i = 0; i < line.length; i += 1000) got.push(...s.push(line.slice(i, i + 1000)));
    got.push(...s.push('\n'));
    expect(got).toEqual([line]);
  });
});
