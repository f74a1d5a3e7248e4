/**
 * Splits a decoded text stream into lines, the framing the API server uses for JSON watch
 * streams (one `WatchEvent` object per line, `\n`-terminated). Chunks may end mid-line or hold
 * several lines; a line longer than one chunk is kept as pieces and joined once, so a large
 * object costs linear time. Blank lines are dropped.
 */
export class LineSplitter {
  #pieces: string[] = [];

  /** Feeds one chunk; returns the lines it completed (without the `\n`). */
  push(chunk: string): string[] {
    let nl = chunk.indexOf('\n');
    if (nl < 0) {
      if (chunk) this.#pieces.push(chunk);
      return [];
    }
    const lines: string[] = [];
    this.#pieces.push(chunk.slice(0, nl));
    lines.push(this.#pieces.join(''));
    this.#pieces = [];
    let start = nl + 1;
    while ((nl = chunk.indexOf('\n', start)) >= 0) {
      lines.push(chunk.slice(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) this.#pieces.push(chunk.slice(start));
    return lines.filter((l) => l.trim() !== '');
  }

  /** Ends the stream; returns the last line if it had no trailing `\n`. */
  end(): string[] {
    const rest = this.#pieces.join('');
    this.#pieces = [];
    return rest.trim() === '' ? [] : [rest];
  }
}
