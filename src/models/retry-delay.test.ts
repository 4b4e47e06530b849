import assert from "node:assert/strict";
import { test } from "node:test";
import { backoffDelayMs, isRetryableStatus, parseRetryAfterMs, retryDelayMs } from "./retry-delay.js";

test("backoff doubles per retry, jitters within [½, 1] of the ceiling, and is capped", () => {
  const low = { baseMs: 100, maxMs: 1000, random: () => 0 };
  const high = { baseMs: 100, maxMs: 1000, random: () => 0.999999 };
  assert.deepEqual([0, 1, 2, 3].map((r) => backoffDelayMs(r, low)), [50, 100, 200, 400]);
  assert.deepEqual([0, 1, 2, 3].map((r) => backoffDelayMs(r, high)), [100, 200, 400, 800]);
  assert.equal(backoffDelayMs(10, high), 1000);
});

test("Retry-After is read as seconds or as an HTTP date", () => {
  assert.equal(parseRetryAfterMs("2"), 2000);
  assert.equal(parseRetryAfterMs("0.05"), 50);
  assert.equal(parseRetryAfterMs(null), undefined);
  assert.equal(parseRetryAfterMs("soon"), undefined);
  const now = Date.parse("2025-01-01T00:00:00Z");
  assert.equal(parseRetryAfterMs("Wed, 01 Jan 2025 00:00:03 GMT", now), 3000);
  assert.equal(parseRetryAfterMs("Tue, 31 Dec 2024 23:00:00 GMT", now), 0);
});

test("the server's Retry-After wins over backoff but is capped", () => {
  const options = { baseMs: 100, maxMs: 1000, random: () => 0 };
  assert.equal(retryDelayMs(0, "0.3", options), 300);
  assert.equal(retryDelayMs(0, "60", options), 1000);
  assert.equal(retryDelayMs(2, null, options), 200);
});

test("retryable statuses are 429 and 5xx only", () => {
  assert.deepEqual([400, 401, 404, 408, 422, 429, 500, 503].filter(isRetryableStatus), [429, 500, 503]);
});
