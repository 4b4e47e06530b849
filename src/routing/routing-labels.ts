/** Option labels and the check that each is exactly one token with the sampler's tokenizer. */
import { LabelNotSingleTokenError } from "./label-not-single-token-error.js";
import type { Tokenize } from "../models/tokenize-client.js";

/** Default labels: "A", "B", …, "Z". */
export function defaultLabels(count: number): string[] {
  if (count > 26) throw new RangeError(`at most 26 routing options have default labels, got ${count}`);
  return Array.from({ length: count }, (_, index) => String.fromCharCode(65 + index));
}

/** Each label's single token id, in order; a label that is not exactly one token throws `LabelNotSingleTokenError` naming it. */
export async function labelTokenIds(labels: readonly string[], tokenize: Tokenize): Promise<number[]> {
  const ids: number[] = [];
  for (const label of labels) {
    const tokens = await tokenize(label);
    if (tokens.length !== 1) throw new LabelNotSingleTokenError(label, tokens);
    ids.push(tokens[0]!);
  }
  return ids;
}
