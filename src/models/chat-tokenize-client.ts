/** A conversation tokenized with the sampler's chat template: the worker's (and vLLM's) `POST /tokenize {messages, tools}`. */
import { toWireMessages } from "./wire-messages.js";
import { createTokenizeRequest, type TokenizeEndpoint } from "./tokenize-client.js";
import type { Message } from "../spec/message.js";
import type { ToolSpec } from "../spec/tool-spec.js";

/** Token ids of `messages` rendered with the chat template, `tools` and the generation prompt. */
export type ChatTokenize = (messages: readonly Message[], tools: readonly ToolSpec[]) => Promise<number[]>;

/** A `ChatTokenize` against an OpenAI-compatible base URL (`…/v1`). */
export function createChatTokenizeClient(options: TokenizeEndpoint): ChatTokenize {
  const request = createTokenizeRequest(options);
  return (messages, tools) => request({ messages: toWireMessages(messages), ...(tools.length === 0 ? {} : { tools }) });
}
