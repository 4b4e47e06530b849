/** ROUGE-L F-measure as `rouge_score.RougeScorer(["rougeL"], use_stemmer=True)` computes it. */
import { porterStem } from "./porter-stemmer.js";

const stemCache = new Map<string, string>();

function stem(token: string): string {
  let stemmed = stemCache.get(token);
  if (stemmed === undefined) {
    stemmed = porterStem(token);
    stemCache.set(token, stemmed);
  }
  return stemmed;
}

/** `rouge_score.tokenize.tokenize` with the Porter stemmer: lower-case, non-alphanumerics to spaces, stem words longer than 3. */
export function rougeTokenize(text: string): string[] {
  const lowered = text.toLowerCase().replace(/[^a-z0-9]+/g, " ");
  const tokens = lowered.split(/\s+/u).map((token) => (token.length > 3 ? stem(token) : token));
  return tokens.filter((token) => /^[a-z0-9]+$/.test(token));
}

function lcsLength(reference: readonly string[], candidate: readonly string[]): number {
  let previous = new Array<number>(candidate.length + 1).fill(0);
  for (let i = 1; i <= reference.length; i++) {
    const current = new Array<number>(candidate.length + 1).fill(0);
    for (let j = 1; j <= candidate.length; j++) {
      current[j] = reference[i - 1] === candidate[j - 1] ? (previous[j - 1] as number) + 1 : Math.max(previous[j] as number, current[j - 1] as number);
    }
    previous = current;
  }
  return previous[candidate.length] as number;
}

/** ROUGE-L F-measure of `prediction` against `target` (0 when either has no tokens). */
export function rougeLFMeasure(target: string, prediction: string): number {
  const targetTokens = rougeTokenize(target);
  const predictionTokens = rougeTokenize(prediction);
  if (targetTokens.length === 0 || predictionTokens.length === 0) return 0;
  const lcs = lcsLength(targetTokens, predictionTokens);
  const precision = lcs / predictionTokens.length;
  const recall = lcs / targetTokens.length;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}
