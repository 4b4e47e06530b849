/**
 * Whether an error from a chat client means the endpoint failed, rather than the model answering badly: the request
 * never got an answer (refused connection, reset socket, timeout — after every retry), the server refused it for a
 * reason of its own (authentication, unknown model, rate limit or 5xx left after every retry, a prompt longer than
 * its context window), or it answered 2xx with a body that is not a chat completion.
 *
 * Not endpoint failures: a 400 / 422 for anything but the context length (vLLM answers 400 when the conversation
 * holds tool-call arguments that are not JSON — the model's own output), and everything that is not a chat client
 * error. Errors are recognised by name, so copies of this package in other bundles count too; `cause` chains are
 * followed, so a wrapped endpoint failure is one as well.
 */
import { ChatConnectionError } from "./chat-connection-error.js";
import { ChatRequestError } from "./chat-request-error.js";
import { ChatResponseError } from "./chat-response-error.js";
import { ChatTimeoutError } from "./chat-timeout-error.js";

/**
 * How servers say a request does not fit the model's context: vLLM ("This model's maximum context length is …", "…
 * longer than the maximum model length …", "Input prompt (N tokens) is too long …"), OpenAI (`context_length_exceeded`),
 * SGLang ("… longer than the model's context length …"), Anthropic-style ("prompt is too long"), TGI / others
 * ("too many tokens"), this project's worker ("the prompt has N tokens; the model's context is M").
 */
const CONTEXT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context[ _-]?length/i,
  /maximum context/i,
  /context window/i,
  /maximum model length/i,
  /max_model_len/i,
  /too many tokens/i,
  /the model's context is \d+/i,
  /\b(prompt|input|context)\b[^.]{0,60}\btoo long\b/i,
];

/** Statuses that are a client error the model may have caused; only their context-overflow form is the endpoint's. */
const MODEL_CAUSABLE_STATUSES: ReadonlySet<number> = new Set([400, 422]);

function saysContextOverflow(text: string): boolean {
  return CONTEXT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

function isEndpointFailureItself(error: unknown): boolean {
  if (ChatConnectionError.isInstance(error) || ChatTimeoutError.isInstance(error) || ChatResponseError.isInstance(error)) return true;
  // The message holds the status and the server's body.
  if (ChatRequestError.isInstance(error)) return !MODEL_CAUSABLE_STATUSES.has(error.status) || saysContextOverflow(error.message);
  return false;
}

/** True when `error` or an error in its `cause` chain (followed 16 deep) passes `test`. */
function inCauseChain(error: unknown, test: (error: unknown) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 16 && current !== undefined && current !== null; depth += 1) {
    if (test(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/** True when `error` (or an error in its `cause` chain) is an endpoint failure; see the module comment. */
export function isEndpointFailure(error: unknown): boolean {
  return inCauseChain(error, isEndpointFailureItself);
}

/**
 * True when `error` (or an error in its `cause` chain) is a server's refusal of a prompt longer than the model's
 * context window: a case a caller can often mend by sending less (shorter examples, a shorter prompt).
 */
export function isContextOverflow(error: unknown): boolean {
  return inCauseChain(error, (current) => ChatRequestError.isInstance(current) && saysContextOverflow(current.message));
}
