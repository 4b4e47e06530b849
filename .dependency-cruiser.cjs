/**
 * The layering of ARCHITECTURE.md, enforced (`npm run check:layers`, part of `npm test`): a module imports only from
 * its own layer or lower ones (tests excepted), and no module-level import cycle exists (tests included).
 *   spec → envs, models (envs, models, store, worker, prompts) → rollout → method (analysis, synthesis, training,
 *   routing, baselines) → run (run, pipeline, compare, serving) → cli (cli, bench, dashboard)
 * `trace dashboard` (src/dashboard/) sits at the cli level: it reads every layer, and only the cli level (cli, bench) imports it.
 * Test support (`src/testing/`: fake servers, hostile modules, fixtures) may import anything and only tests import it.
 */
const layers = [
  ["spec"],
  ["envs", "models", "store", "worker", "prompts"],
  ["rollout"],
  ["analysis", "synthesis", "training", "routing", "baselines"],
  ["run", "pipeline", "compare", "serving"],
  ["cli", "bench", "dashboard"],
];
const folders = (names) => `^src/(${names.join("|")})/`;

module.exports = {
  forbidden: [
    {
      name: "test-support-in-tests-only",
      severity: "error",
      comment: "src/testing/ is test support: only tests (and test support) import it",
      from: { path: "^src/", pathNot: ["\\.test\\.ts$", "-test-support\\.ts$", "^src/testing/"] },
      to: { path: "^src/testing/" },
    },
    {
      name: "dashboard-for-cli-only",
      severity: "error",
      comment: "src/dashboard/ is a top-level consumer: only the CLI (cli, bench) and tests import it",
      from: { path: "^src/", pathNot: ["\\.test\\.ts$", "^src/(cli|bench|dashboard|testing)/"] },
      to: { path: "^src/dashboard/" },
    },
    { name: "no-circular", severity: "error", comment: "module-level import cycles", from: {}, to: { circular: true } },
    ...layers.slice(0, -1).map((layer, index) => ({
      name: `layer-${layer[0]}`,
      severity: "error",
      comment: `${layer.join(", ")} may not import a later layer (${layers.slice(index + 1).flat().join(", ")})`,
      // Tests may drive a module through a later layer (e.g. an environment through the agent loop); modules may not.
      from: { path: folders(layer), pathNot: "\\.test\\.ts$" },
      to: { path: folders(layers.slice(index + 1).flat()) },
    })),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
