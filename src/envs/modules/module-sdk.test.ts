import assert from "node:assert/strict";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import type { Json } from "./capability-module.js";
import { createModuleSdk } from "./module-sdk.js";

const sdk = createModuleSdk();

/** Reference FNV-1a 64 with BigInt over UTF-8 bytes. */
function referenceFnv(text: string): string {
  let value = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, "utf8")) {
    value ^= BigInt(byte);
    value = (value * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return value.toString(16).padStart(16, "0");
}

test("random is mulberry32: reproducible per seed, different across seeds, helpers in range", () => {
  const first = sdk.random(42);
  const second = sdk.random(42);
  const values = Array.from({ length: 50 }, () => first.next());
  assert.deepEqual(values, Array.from({ length: 50 }, () => second.next()));
  assert.ok(values.every((value) => value >= 0 && value < 1));
  const other = sdk.random(43);
  assert.notDeepEqual(values.slice(0, 5), Array.from({ length: 5 }, () => other.next()));
  // mulberry32(1)'s first output (reference implementation).
  assert.equal(Math.round(sdk.random(1).next() * 4294967296), 2693262067);
  const random = sdk.random(7);
  for (let index = 0; index < 200; index += 1) {
    const value = random.int(3, 5);
    assert.ok(value >= 3 && value <= 5 && Number.isInteger(value));
  }
  assert.deepEqual([...random.shuffle([1, 2, 3, 4, 5])].sort(), [1, 2, 3, 4, 5]);
  assert.ok(["a", "b"].includes(random.pick(["a", "b"])));
  assert.throws(() => random.pick([]), RangeError);
  assert.throws(() => random.int(2, 1), RangeError);
});

test("canonical sorts keys at every depth and hash is FNV-1a 64 of it", () => {
  assert.equal(sdk.canonical({ b: 1, a: [{ d: null, c: "é" }] }), '{"a":[{"c":"é","d":null}],"b":1}');
  assert.equal(sdk.hash({ b: 1, a: 2 }), sdk.hash({ a: 2, b: 1 }));
  const values: Json[] = [{ b: 1, a: 2 }, "a", "日本語 ✈ 😀", [1.5, true, null], { nested: { x: [1, { y: "z" }] } }];
  for (const value of values) {
    assert.equal(sdk.hash(value), referenceFnv(sdk.canonical(value)));
  }
  assert.match(sdk.hash({}), /^[0-9a-f]{16}$/);
  assert.equal(sdk.now, "2024-05-15T15:00:00");
});

test("createModuleSdk is self-contained: its source text alone rebuilds an identical SDK", () => {
  // A fresh context has only standard globals: no require, process, Buffer or crypto.
  const rebuilt = runInNewContext(`(${createModuleSdk.toString()})()`) as ReturnType<typeof createModuleSdk>;
  assert.equal(rebuilt.hash({ a: [1, "x"] }), sdk.hash({ a: [1, "x"] }));
  assert.equal(rebuilt.random(9).next(), sdk.random(9).next());
});
