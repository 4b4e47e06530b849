import assert from "node:assert/strict";
import { test } from "node:test";
import { judgeBaseCandidate, type BaseReading } from "./base-candidate.js";
import { explainedShare } from "./mini-failures.js";

/** A reading with the figures that matter to the rule; the sampled report's other counts are not read. */
const reading = (calls: number, ids: number, sampled: number | undefined, failed: number, explained: number): BaseReading => ({
  mechanics: {
    toolCallValidity: calls,
    identifierCopying: ids,
    ...(sampled === undefined ? {} : { sampled: { episodes: 400, temperature: 1, identifiers: 2000, copiedIdentifiers: Math.round(2000 * sampled), identifierCopying: sampled, episodesWithUnseenIdentifier: 0, examples: [] } }),
  },
  failures: { failed, explained, other: failed - explained },
});

// The shipped base as the thirty-fourth session read it on the ten validation ranges: 432 of 551 explained, 119 other.
const shipped = reading(1, 0.998, 0.961, 551, 432);

test("a base passes only when all three tests hold against the reference", () => {
  assert.deepEqual(judgeBaseCandidate(reading(1, 0.996, 0.97, 500, 420), shipped), { mechanics: true, sampledIdentifiers: true, explainedFailures: true, candidate: true });
  // The reference itself passes its own comparisons when its mechanics and share meet the floors; the shipped base's 78.4% does not.
  assert.deepEqual(judgeBaseCandidate(shipped, shipped), { mechanics: true, sampledIdentifiers: true, explainedFailures: false, candidate: false });
});

test("each test fails on its own figure, at the floors' edges", () => {
  // Item 1: 97.9% exact ids, or 97.9% well-formed calls, fails; 98% exactly passes.
  assert.equal(judgeBaseCandidate(reading(1, 0.979, 0.97, 500, 420), shipped).mechanics, false);
  assert.equal(judgeBaseCandidate(reading(0.979, 1, 0.97, 500, 420), shipped).mechanics, false);
  assert.equal(judgeBaseCandidate(reading(0.98, 0.98, 0.97, 500, 420), shipped).mechanics, true);
  // Sampled ids below the reference's fail (b24s15 read 93.2% against 96.1%); equal passes; missing fails.
  assert.equal(judgeBaseCandidate(reading(1, 0.984, 0.932, 546, 329), shipped).sampledIdentifiers, false);
  assert.equal(judgeBaseCandidate(reading(1, 1, 0.961, 500, 420), shipped).sampledIdentifiers, true);
  assert.equal(judgeBaseCandidate(reading(1, 1, undefined, 500, 420), shipped).sampledIdentifiers, false);
  assert.equal(judgeBaseCandidate(reading(1, 1, 0.99, 500, 420), reading(1, 1, undefined, 551, 432)).sampledIdentifiers, false);
  // Item 2: 80% exactly passes; more "other" failures than the reference's 119 fail even above 80% (b24s5-like: 609 failed, 502 explained, 107 other passes).
  assert.equal(judgeBaseCandidate(reading(1, 1, 0.99, 500, 400), shipped).explainedFailures, true);
  assert.equal(judgeBaseCandidate(reading(1, 1, 0.99, 800, 680), shipped).explainedFailures, false);
  assert.equal(judgeBaseCandidate(reading(1, 1, 0.99, 609, 502), shipped).explainedFailures, true);
  assert.equal(judgeBaseCandidate(reading(1, 1, 0.99, 500, 399), shipped).explainedFailures, false);
});

test("a base with no failures explains all of them", () => {
  assert.equal(explainedShare({ failed: 0, explained: 0 }), 1);
  assert.equal(explainedShare({ failed: 551, explained: 432 }), 432 / 551);
});
