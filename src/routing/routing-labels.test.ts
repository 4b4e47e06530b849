import assert from "node:assert/strict";
import { test } from "node:test";
import { LabelNotSingleTokenError } from "./label-not-single-token-error.js";
import { defaultLabels, labelTokenIds } from "./routing-labels.js";
import { createTokenizeClient } from "../models/tokenize-client.js";

const tokenizeByCharacter = (text: string) => Promise.resolve([...text].map((character) => character.charCodeAt(0)));

test("default labels are A, B, C, …", () => {
  assert.deepEqual(defaultLabels(3), ["A", "B", "C"]);
  assert.throws(() => defaultLabels(27), RangeError);
});

test("each label's single token id", async () => {
  assert.deepEqual(await labelTokenIds(["A", "B"], tokenizeByCharacter), [65, 66]);
});

test("a label that is not one token is a typed error naming it", async () => {
  await assert.rejects(
    labelTokenIds(["A", "BC"], tokenizeByCharacter),
    (error: unknown) => error instanceof LabelNotSingleTokenError && error.label === "BC" && error.tokens.length === 2 && /"BC"/.test(error.message),
  );
});

test("the tokenize client posts {prompt} and reads {tokens}", async () => {
  const bodies: unknown[] = [];
  const fakeFetch: typeof fetch = (input, init) => {
    bodies.push({ url: input as string, body: JSON.parse(init?.body as string) as unknown });
    return Promise.resolve(new Response(JSON.stringify({ count: 1, max_model_len: 100, tokens: [7] }), { status: 200 }));
  };
  const tokenize = createTokenizeClient({ baseUrl: "http://host/v1/", fetch: fakeFetch });
  assert.deepEqual(await tokenize("A"), [7]);
  assert.deepEqual(bodies, [{ url: "http://host/v1/tokenize", body: { prompt: "A", add_special_tokens: false } }]);
});
