import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { ChatConnectionError } from "./chat-connection-error.js";
import { createChatClient } from "./chat-client.js";
import { ChatRequestError } from "./chat-request-error.js";
import { ChatResponseError } from "./chat-response-error.js";
import { ChatTimeoutError } from "./chat-timeout-error.js";
import { isEndpointFailure } from "./endpoint-failure.js";

const url = "http://127.0.0.1:8000/v1/chat/completions";
const requestError = (status: number, body: string) => new ChatRequestError(url, status, body, "m");

test("no answer, a server refusal or a malformed 2xx is an endpoint failure", () => {
  assert.equal(isEndpointFailure(new ChatConnectionError(url, 4, "m", { cause: new TypeError("fetch failed") })), true);
  assert.equal(isEndpointFailure(new ChatTimeoutError(url, 120_000, 4, "m")), true);
  assert.equal(isEndpointFailure(new ChatResponseError(url, ["body is not JSON: Unexpected token <"], "<html>")), true);
  for (const status of [401, 403, 404, 408, 413, 429, 500, 502, 503]) assert.equal(isEndpointFailure(requestError(status, "{}")), true, String(status));
});

test("a 400 is the endpoint's only when it says the context is exceeded", () => {
  const overflows = [
    // vLLM
    `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 33012 tokens (32000 in the messages, 1012 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
    `{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 2048. This model's maximum context length is 4096 tokens and your request has 3000 input tokens (2048 > 4096 - 3000).","type":"BadRequestError","code":400}`,
    `{"error":{"message":"The decoder prompt (length 40001) is longer than the maximum model length of 40000. Make sure that \`max_model_len\` is no smaller than the number of text tokens.","type":"BadRequestError"}}`,
    `{"error":{"message":"Input prompt (9000 tokens) is too long and exceeds limit of 8192"}}`,
    // OpenAI
    `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
    // SGLang, others
    `{"error":{"message":"The input (70000 tokens) is longer than the model's context length (65536 tokens)."}}`,
    `{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`,
    `{"error":{"message":"Too many tokens requested"}}`,
    // this project's worker
    `{"error": {"message": "the prompt has 8708 tokens; the model's context is 4096", "type": "invalid_request_error", "param": "messages"}}`,
  ];
  for (const body of overflows) assert.equal(isEndpointFailure(requestError(400, body)), true, body);
  assert.equal(isEndpointFailure(requestError(422, `{"detail":"Input validation error: context window exceeded"}`)), true);

  // vLLM's 400 for tool-call arguments that are not JSON (the model's own output), and other malformed requests.
  assert.equal(isEndpointFailure(requestError(400, `{"object":"error","message":"Expecting ',' delimiter: line 1 column 22 (char 21)","type":"BadRequestError","code":400}`)), false);
  assert.equal(isEndpointFailure(requestError(400, `{"error":{"message":"bad request"}}`)), false);
  assert.equal(isEndpointFailure(requestError(422, `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`)), false);
});

test("other errors are not endpoint failures; a wrapped one is, copies are recognised by name", () => {
  assert.equal(isEndpointFailure(new Error("agent sent an empty message")), false);
  assert.equal(isEndpointFailure(new SyntaxError("Unexpected token")), false);
  assert.equal(isEndpointFailure("connection refused"), false);
  assert.equal(isEndpointFailure(undefined), false);
  assert.equal(isEndpointFailure(null), false);
  const wrapped = new Error("user simulator failed", { cause: new ChatTimeoutError(url, 1000, 1, "m") });
  assert.equal(isEndpointFailure(wrapped), true);
  const copy = Object.assign(new Error("POST … failed after 1 attempt"), { name: "ChatConnectionError" });
  assert.equal(isEndpointFailure(copy), true);
  const cyclic = new Error("a");
  (cyclic as { cause?: unknown }).cause = cyclic;
  assert.equal(isEndpointFailure(cyclic), false);
});

test("a real client pointed at a port nothing listens on fails with an endpoint failure", async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const client = createChatClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", maxRetries: 0 });
  const error = await client.complete({ messages: [{ role: "user", content: "hi" }] }).then(
    () => assert.fail("expected a refused connection"),
    (failure: unknown) => failure,
  );
  assert.equal((error as Error).name, "ChatConnectionError");
  assert.equal(isEndpointFailure(error), true);
});
