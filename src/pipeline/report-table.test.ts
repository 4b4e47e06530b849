import assert from "node:assert/strict";
import { test } from "node:test";
import { formatReport } from "./report-table.js";

test("the evaluation table: pass rates per domain and overall, adapter gains, routing shares", () => {
  const report = formatReport("run", {
    domains: [
      { domain: "airline", base: { passed: 1, total: 4 }, trace: { passed: 3, total: 4 } },
      { domain: "retail", base: { passed: 0, total: 0 }, trace: { passed: 0, total: 0 } },
    ],
    overall: { base: { passed: 1, total: 4 }, trace: { passed: 3, total: 4 } },
    capabilities: [
      { capability: "tool_calling_precision", seeds: [1000, 1001], before: 0.25, after: 0.5, iterations: 14 },
      { capability: "multi_step_completion", seeds: [1000], before: 0.5, after: 0.375 },
    ],
    routing: [
      { option: "tool_calling_precision", label: "A", tasks: 1 },
      { option: "base (none of these)", label: "B", tasks: 3 },
    ],
  });
  const rows = report.split("\n");
  assert.equal(rows[0], "# run: TRACE report");
  assert.ok(rows.includes("| airline | 25.0% (1/4) | 75.0% (3/4) |"));
  assert.ok(rows.includes("| retail | - | - |"), "a domain without episodes has no rate");
  assert.ok(rows.includes("| overall (solved / tasks) | 25.0% (1/4) | 75.0% (3/4) |"));
  assert.ok(rows.includes("| tool_calling_precision | 14 | 2 | 0.250 | 0.500 | +0.250 |"));
  assert.ok(rows.includes("| multi_step_completion | - | 1 | 0.500 | 0.375 | -0.125 |"), "results written before iterations were recorded");
  assert.ok(rows.includes("| tool_calling_precision | A | 1 | 25.0% |"));
  assert.ok(rows.includes("| base (none of these) | B | 3 | 75.0% |"));
  assert.ok(!report.includes("kind of task"), "no table of kinds when the target names none");
  assert.ok(!report.includes("no adapter trained"), "results written before untrained capabilities were recorded");
});

test("capabilities the analysis kept without an adapter are named with the reason", () => {
  const count = { passed: 0, total: 1 };
  const results = { domains: [], overall: { base: count, trace: count }, capabilities: [], routing: [] };
  const report = formatReport("run", { ...results, untrained: [{ capability: "communicate_required_information", reason: "no environment configured (environments.map)" }] });
  assert.ok(report.split("\n").includes("Kept by the analysis, no adapter trained: communicate_required_information (no environment configured (environments.map))."));
  assert.ok(!formatReport("run", { ...results, untrained: [] }).includes("no adapter trained"), "nothing said when every kept capability has an adapter");
});

test("failure counts written before the closing claims were counted get no claims row", () => {
  const count = { passed: 0, total: 1 };
  const failed = { episodes: 1, failed: 1, byDeficit: { incomplete: 0 }, other: 1 };
  const report = formatReport("run", { domains: [], overall: { base: count, trace: count }, capabilities: [], routing: [], failures: { base: failed, trace: failed } });
  assert.ok(report.split("\n").includes("| something else | 1 | 1 |"));
  assert.ok(!report.includes("claims a change never made"));
});

test("a target that names kinds of task gets base and TRACE per kind", () => {
  const report = formatReport("mini", {
    domains: [
      {
        domain: "mini",
        base: { passed: 2, total: 5 },
        trace: { passed: 4, total: 5 },
        groups: { composite: { base: { passed: 0, total: 2 }, trace: { passed: 1, total: 2 } }, payment: { base: { passed: 2, total: 3 }, trace: { passed: 3, total: 3 } } },
      },
    ],
    overall: { base: { passed: 2, total: 5 }, trace: { passed: 4, total: 5 } },
    capabilities: [],
    routing: [],
    routes: [
      { option: "payments", label: "A", tasks: 3, base: { passed: 1, total: 3 }, trace: { passed: 3, total: 3 } },
      { option: "base (none of these)", label: "B", tasks: 0, base: { passed: 0, total: 0 }, trace: { passed: 0, total: 0 } },
    ],
    failures: {
      base: { episodes: 5, failed: 3, byDeficit: { incomplete: 2, payment: 1, precondition: 0 }, other: 1, otherClaimingUnmadeChange: 1 },
      trace: { episodes: 5, failed: 1, byDeficit: { incomplete: 1, payment: 0, precondition: 0 }, other: 0, otherClaimingUnmadeChange: 0 },
    },
  });
  const rows = report.split("\n");
  assert.ok(rows.includes("| domain | kind of task | base pass rate | TRACE pass rate |"));
  // Which designed deficits the failed episodes show, before and after TRACE.
  assert.ok(rows.includes("| failed held-out episodes showing | base | TRACE |"));
  assert.ok(rows.includes("| incomplete | 2 | 1 |"));
  assert.ok(rows.includes("| payment | 1 | 0 |"));
  assert.ok(rows.includes("| something else | 1 | 0 |"));
  assert.ok(rows.includes("| … of which the reply claims a change never made | 1 | 0 |"));
  assert.ok(rows.includes("| failed (of episodes) | 3 of 5 | 1 of 5 |"));
  // Tasks per routing option, with the base and with TRACE; an option no evaluation task went to is left out.
  assert.ok(rows.includes("| evaluation tasks routed to | tasks | base pass rate | TRACE pass rate |"));
  assert.ok(rows.includes("| payments | 3 | 33.3% (1/3) | 100.0% (3/3) |"));
  assert.ok(!rows.some((row) => row.startsWith("| base (none of these) | 0 |")));
  assert.ok(rows.includes("| mini | composite | 0.0% (0/2) | 50.0% (1/2) |"));
  assert.ok(rows.includes("| mini | payment | 66.7% (2/3) | 100.0% (3/3) |"));
});

test("a run without adapters or routed tasks says so instead of dividing by zero", () => {
  const report = formatReport("empty", { domains: [], overall: { base: { passed: 0, total: 0 }, trace: { passed: 0, total: 0 } }, capabilities: [], routing: [{ option: "base (none of these)", label: "A", tasks: 0 }] });
  assert.ok(report.includes("| (no adapters) | | | | |"));
  assert.ok(report.includes("| base (none of these) | A | 0 | - |"));
  assert.ok(report.includes("| overall (solved / tasks) | - | - |"));
});

test("a graded reward (ToolSandbox's similarity) gets its mean beside the pass rate; a pass/fail reward does not", () => {
  const graded = { passed: 1, total: 4 };
  const report = formatReport("toolsandbox", {
    domains: [
      { domain: "toolsandbox", base: graded, trace: { passed: 2, total: 4 }, meanReward: { base: 0.411, trace: 0.552 } },
      { domain: "airline", base: { passed: 1, total: 2 }, trace: { passed: 2, total: 2 }, meanReward: { base: 0.5, trace: 1 } },
    ],
    overall: { base: { passed: 2, total: 6 }, trace: { passed: 4, total: 6 } },
    capabilities: [],
    routing: [],
  });
  const rows = report.split("\n");
  assert.ok(rows.includes("| domain | base mean reward | TRACE mean reward | gain |"));
  assert.ok(rows.includes("| toolsandbox | 0.411 | 0.552 | +0.141 |"));
  assert.ok(!rows.some((row) => row.startsWith("| airline | 0.500")), "a pass/fail domain's mean reward is its pass rate: not repeated");
  const binary = formatReport("tau2", { domains: [{ domain: "airline", base: { passed: 1, total: 2 }, trace: { passed: 2, total: 2 }, meanReward: { base: 0.5, trace: 1 } }], overall: { base: { passed: 1, total: 2 }, trace: { passed: 2, total: 2 } }, capabilities: [], routing: [] });
  assert.ok(!binary.includes("mean reward |"), "no mean-reward table when every reward is pass/fail");
});
