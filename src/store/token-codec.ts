/**
 * Compact storage of sampled tokens: one BLOB per episode holding, for each assistant turn that carries tokens,
 * its message index, prompt ids and completion ids (Int32) and completion logprobs (Float32), little-endian.
 *
 * Layout (all 4-byte words): magic "TTK1", turn count, then per turn:
 * message index, prompt length, completion length, logprob count, prompt ids, completion ids, logprobs.
 * Logprobs lose precision to Float32 (about 7 significant digits), which is ample for training.
 */
import type { Message, SampledTokens } from "../spec/message.js";

export interface TurnTokens {
  /** Index of the assistant message in the episode's messages. */
  messageIndex: number;
  tokens: SampledTokens;
}

const MAGIC = 0x314b5454; // "TTK1" read little-endian
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function checkIds(ids: readonly number[], what: string, messageIndex: number): void {
  for (const id of ids) {
    if (!Number.isInteger(id) || id < INT32_MIN || id > INT32_MAX) {
      throw new RangeError(`message ${messageIndex}: ${what} token id ${id} is not a 32-bit integer`);
    }
  }
}

/** Encodes the turns' tokens as one buffer; null when there are none. */
export function encodeTurnTokens(turns: readonly TurnTokens[]): Buffer | null {
  if (turns.length === 0) return null;
  let words = 2;
  for (const { messageIndex, tokens } of turns) {
    checkIds(tokens.promptTokenIds, "prompt", messageIndex);
    checkIds(tokens.completionTokenIds, "completion", messageIndex);
    words += 4 + tokens.promptTokenIds.length + tokens.completionTokenIds.length + tokens.completionLogprobs.length;
  }
  const buffer = Buffer.alloc(words * 4);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let offset = 0;
  const putUint = (value: number): void => {
    view.setUint32(offset, value, true);
    offset += 4;
  };
  putUint(MAGIC);
  putUint(turns.length);
  for (const { messageIndex, tokens } of turns) {
    putUint(messageIndex);
    putUint(tokens.promptTokenIds.length);
    putUint(tokens.completionTokenIds.length);
    putUint(tokens.completionLogprobs.length);
    for (const id of tokens.promptTokenIds) {
      view.setInt32(offset, id, true);
      offset += 4;
    }
    for (const id of tokens.completionTokenIds) {
      view.setInt32(offset, id, true);
      offset += 4;
    }
    for (const logprob of tokens.completionLogprobs) {
      view.setFloat32(offset, logprob, true);
      offset += 4;
    }
  }
  return buffer;
}

/** Decodes a buffer made by `encodeTurnTokens`; throws on a malformed one. */
export function decodeTurnTokens(blob: Uint8Array): TurnTokens[] {
  if (blob.byteLength % 4 !== 0 || blob.byteLength < 8) throw new Error(`token blob of ${blob.byteLength} bytes is malformed`);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  let offset = 0;
  const take = (count: number): void => {
    if (offset + count * 4 > blob.byteLength) throw new Error(`token blob is truncated at byte ${offset}`);
  };
  const getUint = (): number => {
    take(1);
    const value = view.getUint32(offset, true);
    offset += 4;
    return value;
  };
  if (getUint() !== MAGIC) throw new Error("token blob has an unknown format (bad magic)");
  const count = getUint();
  const turns: TurnTokens[] = [];
  for (let turn = 0; turn < count; turn++) {
    const messageIndex = getUint();
    const promptLength = getUint();
    const completionLength = getUint();
    const logprobCount = getUint();
    take(promptLength + completionLength + logprobCount);
    const promptTokenIds = new Array<number>(promptLength);
    for (let i = 0; i < promptLength; i++, offset += 4) promptTokenIds[i] = view.getInt32(offset, true);
    const completionTokenIds = new Array<number>(completionLength);
    for (let i = 0; i < completionLength; i++, offset += 4) completionTokenIds[i] = view.getInt32(offset, true);
    const completionLogprobs = new Array<number>(logprobCount);
    for (let i = 0; i < logprobCount; i++, offset += 4) completionLogprobs[i] = view.getFloat32(offset, true);
    turns.push({ messageIndex, tokens: { promptTokenIds, completionTokenIds, completionLogprobs } });
  }
  if (offset !== blob.byteLength) throw new Error(`token blob has ${blob.byteLength - offset} trailing bytes`);
  return turns;
}

/** Splits messages into copies without `tokens` and the tokens of each assistant turn that had them. */
export function splitTokens(messages: readonly Message[]): { messages: Message[]; turns: TurnTokens[] } {
  const turns: TurnTokens[] = [];
  const stripped = messages.map((message, messageIndex): Message => {
    if (message.role !== "assistant" || message.tokens === undefined) return message;
    const { tokens, ...rest } = message;
    turns.push({ messageIndex, tokens });
    return rest;
  });
  return { messages: stripped, turns };
}

/** Puts tokens back on their assistant messages (inverse of `splitTokens`). */
export function mergeTokens(messages: readonly Message[], turns: readonly TurnTokens[]): Message[] {
  const merged = [...messages];
  for (const { messageIndex, tokens } of turns) {
    const message = merged[messageIndex];
    if (message?.role !== "assistant") throw new Error(`tokens recorded for message ${messageIndex}, which is not an assistant message`);
    merged[messageIndex] = { ...message, tokens };
  }
  return merged;
}
