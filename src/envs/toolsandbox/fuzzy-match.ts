/**
 * The rapidfuzz scorers ToolSandbox's search tools use (`fuzz.WRatio`, `fuzz.partial_ratio` with
 * `utils.default_process`, and `process.extract`'s cutoff, limit and order), following rapidfuzz 3's pure-Python
 * fallback. Written by hand: the npm fuzzy matchers (fuzzball) round scores to integers and align partial ratios
 * differently, which moves results across ToolSandbox's thresholds.
 */

/** `utils.default_process`: lower-case, non-alphanumerics to spaces, trimmed. */
export function defaultProcess(text: string): string {
  return text.replace(/[^\p{L}\p{N}]/gu, " ").toLowerCase().trim();
}

function lcsLength(left: string, right: string): number {
  const a = [...left];
  const b = [...right];
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) current[j] = a[i - 1] === b[j - 1] ? (previous[j - 1] as number) + 1 : Math.max(previous[j] as number, current[j - 1] as number);
    previous = current;
  }
  return previous[b.length] as number;
}

const length = (text: string): number => [...text].length;

/** `fuzz.ratio`: normalised Indel similarity × 100. */
export function ratio(left: string, right: string): number {
  const total = length(left) + length(right);
  if (total === 0) return 100;
  const distance = total - 2 * lcsLength(left, right);
  return 100 * (1 - distance / total);
}

function partialRatioShortNeedle(needle: string, haystack: string): number {
  const s1 = [...needle];
  const s2 = [...haystack];
  const characters = new Set(s1);
  let best = 0;
  const consider = (window: string[]) => {
    const score = ratio(s1.join(""), window.join(""));
    if (score > best) best = score;
  };
  for (let i = 1; i < s1.length; i++) {
    if (!characters.has(s2[i - 1] as string)) continue;
    consider(s2.slice(0, i));
    if (best === 100) return best;
  }
  for (let i = 0; i < s2.length - s1.length; i++) {
    if (!characters.has(s2[i + s1.length - 1] as string)) continue;
    consider(s2.slice(i, i + s1.length));
    if (best === 100) return best;
  }
  for (let i = Math.max(s2.length - s1.length, 0); i < s2.length; i++) {
    if (!characters.has(s2[i] as string)) continue;
    consider(s2.slice(i));
    if (best === 100) return best;
  }
  return best;
}

/** `fuzz.partial_ratio`: the best `ratio` of the shorter string against windows of the longer. */
export function partialRatio(left: string, right: string): number {
  let shorter = left;
  let longer = right;
  if (length(shorter) > length(longer)) [shorter, longer] = [longer, shorter];
  if (length(shorter) === 0) return length(longer) === 0 ? 100 : 0;
  let score = partialRatioShortNeedle(shorter, longer);
  if (score !== 100 && length(shorter) === length(longer)) score = Math.max(score, partialRatioShortNeedle(longer, shorter));
  return score;
}

const tokens = (text: string): string[] => text.split(/\s+/u).filter((token) => token !== "");
const sortedJoin = (words: Iterable<string>): string => [...words].sort().join(" ");

function tokenSortRatio(left: string, right: string): number {
  return ratio(sortedJoin(tokens(left)), sortedJoin(tokens(right)));
}

function tokenSetRatio(left: string, right: string): number {
  const a = new Set(tokens(left));
  const b = new Set(tokens(right));
  if (a.size === 0 || b.size === 0) return 0;
  const intersection = [...a].filter((token) => b.has(token));
  const onlyA = [...a].filter((token) => !b.has(token));
  const onlyB = [...b].filter((token) => !a.has(token));
  if (intersection.length > 0 && (onlyA.length === 0 || onlyB.length === 0)) return 100;
  const joinedA = sortedJoin(onlyA);
  const joinedB = sortedJoin(onlyB);
  const sectionLength = length(sortedJoin(intersection));
  const separator = sectionLength !== 0 ? 1 : 0;
  const sectionALength = sectionLength + separator + length(joinedA);
  const sectionBLength = sectionLength + separator + length(joinedB);
  const distance = length(joinedA) + length(joinedB) - 2 * lcsLength(joinedA, joinedB);
  const normalised = (value: number, lengths: number) => (lengths === 0 ? 100 : 100 * (1 - value / lengths));
  const result = normalised(distance, sectionALength + sectionBLength);
  if (sectionLength === 0) return result;
  const sectionADistance = separator + length(joinedA);
  const sectionBDistance = separator + length(joinedB);
  return Math.max(result, normalised(sectionADistance, sectionLength + sectionALength), normalised(sectionBDistance, sectionLength + sectionBLength));
}

function partialTokenRatio(left: string, right: string): number {
  const splitA = tokens(left);
  const splitB = tokens(right);
  const a = new Set(splitA);
  const b = new Set(splitB);
  if (a.size === 0 || b.size === 0) return 0;
  if ([...a].some((token) => b.has(token))) return 100;
  const onlyA = [...a].filter((token) => !b.has(token));
  const onlyB = [...b].filter((token) => !a.has(token));
  const result = partialRatio(sortedJoin(splitA), sortedJoin(splitB));
  if (splitA.length === onlyA.length && splitB.length === onlyB.length) return result;
  return Math.max(result, partialRatio(sortedJoin(onlyA), sortedJoin(onlyB)));
}

/** `fuzz.WRatio` on already processed strings. */
export function weightedRatio(left: string, right: string): number {
  if (left === "" || right === "") return 0;
  const lengthLeft = length(left);
  const lengthRight = length(right);
  const lengthRatio = lengthLeft > lengthRight ? lengthLeft / lengthRight : lengthRight / lengthLeft;
  let score = ratio(left, right);
  if (lengthRatio < 1.5) return Math.max(score, Math.max(tokenSortRatio(left, right), tokenSetRatio(left, right)) * 0.95);
  const partialScale = lengthRatio <= 8 ? 0.9 : 0.6;
  score = Math.max(score, partialRatio(left, right) * partialScale);
  return Math.max(score, partialTokenRatio(left, right) * 0.95 * partialScale);
}

/**
 * `process.extract(query, choices, processor=default_process, scorer=WRatio, score_cutoff=threshold)`: indices of
 * the (at most five) best choices scoring at least the threshold, best first, ties in choice order; null choices skipped.
 */
export function extractMatches(query: string, choices: readonly (string | null)[], threshold: number, limit = 5): number[] {
  const processedQuery = defaultProcess(query);
  const scored: { index: number; score: number }[] = [];
  choices.forEach((choice, index) => {
    if (choice === null) return;
    const score = weightedRatio(processedQuery, defaultProcess(choice));
    if (score >= threshold) scored.push({ index, score });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, limit).map((entry) => entry.index);
}
