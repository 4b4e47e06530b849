/**
 * A conversation as a cross-entropy datum: the full conversation's tokens with weight 1 on exactly the tokens each
 * assistant turn adds after its prompt prefix (its content, tool calls and end-of-turn token), 0 elsewhere (or on the
 * last assistant turn only, with `lastTurnOnly`).
 */
import type { Message } from "../spec/message.js";
import type { ToolSpec } from "../spec/tool-spec.js";
import type { Datum } from "../worker/trainer-types.js";
import type { ChatTokenize } from "../models/chat-tokenize-client.js";
import { TemplatePrefixError } from "./template-prefix-error.js";

export interface SftDatumOptions {
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  tokenize: ChatTokenize;
  /** Ids that end an assistant turn (`<|im_end|>` for Qwen); the first one after a turn's prompt closes the turn. */
  endOfTurnTokenIds: readonly number[];
  /**
   * Weight only the last assistant turn: the earlier ones are context (another policy's turns, as in a correction
   * datum whose conversation the model itself played and whose last turn is the expert's).
   */
  lastTurnOnly?: boolean;
}

/** The datum (position i predicts token i + 1) and its weighted token count. */
export interface SftDatum {
  datum: Datum;
  weightedTokens: number;
}

/** Tokenizes each assistant turn's prefix and the whole conversation, and weights the assistant tokens. */
export async function sftDatum(options: SftDatumOptions): Promise<SftDatum> {
  const { messages, tools, tokenize } = options;
  const endOfTurn = new Set(options.endOfTurnTokenIds);
  const full = await tokenize(messages, tools);
  const weighted = new Array<number>(full.length).fill(0);
  let end = 0;
  const lastAssistant = messages.map((message) => message.role).lastIndexOf("assistant");
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant" || (options.lastTurnOnly === true && index !== lastAssistant)) continue;
    const prefix = await tokenize(messages.slice(0, index), tools);
    if (prefix.length > full.length || prefix.some((token, position) => full[position] !== token)) throw new TemplatePrefixError(index, prefix);
    let position = prefix.length;
    while (position < full.length && !endOfTurn.has(full[position]!)) weighted[position++] = 1;
    if (position < full.length) weighted[position++] = 1;
    end = position;
  }
  const tokens = full.slice(0, end);
  const weights = weighted.slice(1, end);
  return { datum: { tokens: tokens.slice(0, -1), targetTokens: tokens.slice(1), weights }, weightedTokens: weights.reduce((sum, weight) => sum + weight, 0) };
}
