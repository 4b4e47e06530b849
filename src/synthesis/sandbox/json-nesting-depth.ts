/** How deeply a JSON text nests, measured on the text before anyone parses or walks it. */

const quote = 0x22;
const backslash = 0x5c;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const openBrace = 0x7b;
const closeBrace = 0x7d;

/**
 * The deepest nesting of arrays and objects in a JSON text (`1` → 0, `[{}]` → 2), found in one pass over the
 * characters without parsing (strings are skipped with `indexOf`); it stops early, returning `stopAbove + 1`, once the
 * nesting goes past `stopAbove`.
 */
export function jsonNestingDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === quote) {
      index = endOfString(text, index);
    } else if (code === openBracket || code === openBrace) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (code === closeBracket || code === closeBrace) {
      depth--;
    }
  }
  return deepest;
}

/** The index of the quote that closes the string opening at `start`. */
function endOfString(text: string, start: number): number {
  let index = start + 1;
  for (;;) {
    const next = text.indexOf('"', index);
    if (next === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(next - 1 - backslashes) === backslash) backslashes++;
    if (backslashes % 2 === 0) return next;
    index = next + 1;
  }
}
