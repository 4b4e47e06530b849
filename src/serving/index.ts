/** Serving a finished run's routed agent behind an OpenAI-compatible chat endpoint. */
export { createConversationRoutes, conversationKey, contentText, firstUserMessage, type ConversationRoutes, type RouteChoice, type RoutableMessage } from "./conversation-routes.js";
export { createRoutedChatServer, ROUTE_HEADER, type ListeningChatServer, type RoutedChatServer, type RoutedChatServerOptions, type UpstreamServer } from "./routed-chat-server.js";
export { chatCompletionBodySchema, completionChunks, serverSentEvents, type ChatCompletionBody, type CompletionChunkOptions } from "./sse-completion.js";
export { RunNotServableError } from "./run-not-servable-error.js";
