/** Test support: scripted TRACE-mini policies with one designed flaw, for the mechanics and the base stage's corrections. */
import type { ChatClient } from "../models/chat-client.js";
import type { ChatCompletion, ChatRequest } from "../models/chat-types.js";
import { createScriptedExpert } from "../envs/mini/scripted-expert.js";
import { NO_EXPERT_DEFICITS } from "../envs/mini/expert-deficits.js";

/** The flawless expert, except that right after an order lookup its calls name the order with its last two digits swapped (#W45 → #W54). */
export function expertGarblingAfterLookup(): ChatClient {
  const expert = createScriptedExpert({ deficits: NO_EXPERT_DEFICITS });
  return {
    async complete(request: ChatRequest): Promise<ChatCompletion> {
      const completion = await expert.complete(request);
      const last = request.messages.at(-1);
      if (last?.role !== "tool" || !last.content.includes('"status"')) return completion;
      const calls = completion.message.tool_calls?.map((call) => ({ ...call, function: { ...call.function, arguments: call.function.arguments.replace(/#W(\d)(\d)\b/g, "#W$2$1") } }));
      return { ...completion, message: { ...completion.message, ...(calls === undefined ? {} : { tool_calls: calls }) } };
    },
    usage: () => expert.usage(),
  };
}
