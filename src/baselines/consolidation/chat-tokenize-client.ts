/** A conversation tokenized with the sampler's chat template: the worker's (and vLLM's) `POST /tokenize {messages, tools}`. */
import { z } from "zod";
import { toWireMessages } from "../../models/wire-messages.js";
import { TokenizeRequestError } from "../../routing/tokenize-request-error.js";
import type { Message } from "../../spec/message.js";
import type { ToolSpec } from "../../spec/tool-spec.js";

/** Token ids of `messages` rendered with the chat template, `tools` and the generation prompt. */
export type ChatTokenize = (messages: readonly Message[], tools: readonly ToolSpec[]) => Promise<number[]>;

const responseSchema = z.object({ tokens: z.array(z.number().int()) });

/** A `ChatTokenize` against an OpenAI-compatible base URL (`…/v1`). */
export function createChatTokenizeClient(options: { baseUrl: string; apiKey?: string; fetch?: typeof fetch }): ChatTokenize {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/tokenize`;
  const send = options.fetch ?? fetch;
  return async (messages, tools) => {
    let response: Response;
    try {
      response = await send(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }) },
        body: JSON.stringify({ messages: toWireMessages(messages), ...(tools.length === 0 ? {} : { tools }) }),
      });
    } catch (error) {
      throw new TokenizeRequestError(url, "no response", { cause: error });
    }
    const body = await response.text();
    if (!response.ok) throw new TokenizeRequestError(url, `HTTP ${response.status}: ${body.slice(0, 300)}`);
    const result = responseSchema.safeParse(JSON.parse(body));
    if (!result.success) throw new TokenizeRequestError(url, `unexpected answer: ${result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
    return result.data.tokens;
  };
}
