import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HAND_MADE, result } from "./comparison-test-support.js";
import { DomainMismatchError } from "./domain-mismatch-error.js";
import { EmptyResultsError } from "./empty-results-error.js";
import { InvalidResultError } from "./invalid-result-error.js";
import { validateResults } from "./validate-results.js";

describe("validateResults", () => {
  test("returns the domains of the first result, accepting another order in later ones", () => {
    const swapped = { ...HAND_MADE[1]!, domains: [...HAND_MADE[1]!.domains].reverse() };
    assert.deepEqual(validateResults([HAND_MADE[0]!, swapped]), ["airline", "retail"]);
  });

  test("refuses empty results", () => {
    assert.throws(() => validateResults([]), EmptyResultsError);
  });

  test("names the method and seed whose domains differ", () => {
    const odd = { ...HAND_MADE[3]!, domains: [HAND_MADE[3]!.domains[0]!, { domain: "telecom", passed: 1, total: 2, meanReward: 0.5 }] };
    assert.throws(
      () => validateResults([...HAND_MADE.slice(0, 3), odd]),
      (error: unknown) =>
        error instanceof DomainMismatchError &&
        error.method === "trace" &&
        error.seed === 2 &&
        error.domains.includes("telecom") &&
        /"trace" seed 2/.test(error.message),
    );
    const missing = { ...HAND_MADE[2]!, domains: HAND_MADE[2]!.domains.slice(0, 1) };
    assert.throws(() => validateResults([HAND_MADE[0]!, missing]), { name: "DomainMismatchError", method: "base", seed: 2 });
  });

  test("refuses a repeated method and seed, impossible counts and an empty curve", () => {
    assert.throws(() => validateResults([HAND_MADE[0]!, HAND_MADE[0]!]), { name: "InvalidResultError", method: "base", seed: 1 });
    const impossible = result({ method: "sft", label: "SFT", group: "baseline", seed: 4 }, 11, 2, 0);
    assert.throws(() => validateResults([impossible]), (error: unknown) => error instanceof InvalidResultError && /11 passed of 10/.test(error.message));
    assert.throws(() => validateResults([{ ...impossible, domains: HAND_MADE[0]!.domains, curve: [] }]), /curve has no point/);
  });
});
