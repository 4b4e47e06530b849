/** The chat model client's public surface. */
export { createChatClient, type ChatClient, type ChatClientOptions } from "./chat-client.js";
export type { ChatCompletion, ChatRequest, TokenLogprob, UsageTotals } from "./chat-types.js";
export { ChatConnectionError } from "./chat-connection-error.js";
export { ChatRequestError } from "./chat-request-error.js";
export { ChatResponseError } from "./chat-response-error.js";
export { ChatTimeoutError } from "./chat-timeout-error.js";
export { createConcurrencyLimit, type ConcurrencyLimit } from "./concurrency-limit.js";
export { isEndpointFailure } from "./endpoint-failure.js";
