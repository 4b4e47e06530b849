/** Adapter routing (TRACE step 4): a one-token-label prompt over the kept capabilities and "none of these", scored by label logprobs. */
export { createRouter, ROUTING_TOP_LOGPROBS, type Router, type RouterOptions } from "./create-router.js";
export { LabelNotSingleTokenError } from "./label-not-single-token-error.js";
export { MissingLabelLogprobsError } from "./missing-label-logprobs-error.js";
export { defaultLabels, labelTokenIds } from "./routing-labels.js";
export type { RoutingDecision, RoutingOption } from "./routing-option.js";
export { ROUTING_PROMPT_FILE, routingMessages, routingPromptText } from "./routing-prompt.js";
export { selectRoute } from "./select-route.js";
export { solutionTranscript } from "./solution-transcript.js";
export { createRetrievalRouter, RetrievalRouterError, type RetrievalOption, type RetrievalRouter, type RetrievalRouterOptions } from "./retrieval-router.js";
export { createTokenizeClient, type Tokenize } from "../models/tokenize-client.js";
export { TokenizeRequestError } from "../models/tokenize-request-error.js";
