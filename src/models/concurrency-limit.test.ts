import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { createConcurrencyLimit } from "./concurrency-limit.js";

test("never runs more than the limit at once and runs every task", async () => {
  const limit = createConcurrencyLimit(3);
  let running = 0;
  let peak = 0;
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      limit.run(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(2);
        running -= 1;
        return i;
      }),
    ),
  );
  assert.deepEqual(results, Array.from({ length: 12 }, (_, i) => i));
  assert.equal(peak, 3);
  assert.equal(limit.active, 0);
  assert.equal(limit.pending, 0);
});

test("a failing task frees its slot", async () => {
  const limit = createConcurrencyLimit(1);
  await assert.rejects(limit.run(() => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(await limit.run(() => Promise.resolve("ok")), "ok");
  assert.equal(limit.active, 0);
});

test("rejects a limit that is not a positive integer", () => {
  assert.throws(() => createConcurrencyLimit(0), RangeError);
  assert.throws(() => createConcurrencyLimit(1.5), RangeError);
});
