/**
 * The `Warning` headers of a response, as kube-apiserver's warning recorder writes them: each text
 * once (duplicates dropped), in order, and at most 4,096 runes in total. Once a warning would pass
 * that, every warning is cut to 256 runes, and those that still do not fit are dropped, so a
 * request with 150,000 unknown fields gets a few kilobytes of headers (clients refuse larger ones:
 * Node's 16 KiB, curl's) rather than none at all or a failed response.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/filters/warning.go
 */

/** Total runes (Unicode code points) of warning text per response before truncation starts. */
export const WarningTotalRunes = 4 * 1024;
/** Runes each warning is cut to once truncating. */
export const WarningItemRunes = 256;

/** A text cut to its first `n` code points (never inside a surrogate pair). */
const cut = (text: string, n: number): { text: string; runes: number } => {
  const cps = Array.from(text);
  return cps.length > n ? { text: cps.slice(0, n).join(''), runes: n } : { text, runes: cps.length };
};

/**
 * The warnings to send, deduplicated and truncated as above.
 * @param warnings - texts in the order they were added (may repeat, may be huge in number)
 * @param totalRunes - the total limit ({@link WarningTotalRunes}; tests shrink it)
 * @param itemRunes - each warning's limit once truncating ({@link WarningItemRunes})
 * @returns the texts to write, one `Warning: 299 - "text"` header each
 */
export function warningsToSend(warnings: readonly string[], totalRunes = WarningTotalRunes, itemRunes = WarningItemRunes): string[] {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let out: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of warnings) {
    if (!text) continue;
    if (truncating && written >= totalRunes) break;
    if (recorded.has(text)) continue;
    recorded.add(text);
    ordered.push(text);
    // A text far past the limit is counted only as far as it matters.
    const item = truncating ? cut(text, itemRunes) : cut(text, totalRunes + 1);
    if (written + item.runes <= totalRunes || truncating) {
      written += item.runes;
      out.push(truncating ? item.text : text);
      continue;
    }
    // Over the limit: truncate from here on, replaying what was recorded so far.
    truncating = true;
    written = 0;
    out = [];
    for (const w of ordered) {
      const t = cut(w, itemRunes);
      written += t.runes;
      out.push(t.text);
    }
  }
  return out;
}
