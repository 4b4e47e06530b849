/** Runs the rollout-overhead benchmark: `npm run bench:rollout [-- --data-dir ../shared/data/tau2 --trials 7 --concurrency 1,8]`. */
import os from "node:os";
import { parseArgs } from "node:util";
import { benchRolloutOverhead, formatOverheadTable, TARGET_MS_PER_STEP, TOOL_TURNS } from "./rollout-overhead-bench.js";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "../shared/data/tau2" },
    trials: { type: "string", default: "7" },
    concurrency: { type: "string", default: "1,8" },
  },
});
const trials = Number.parseInt(values.trials, 10);
const concurrencies = values.concurrency.split(",").map((value) => Number.parseInt(value, 10));

console.log(`Rollout runner overhead — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, ${os.platform()} ${os.arch()}`);
const result = await benchRolloutOverhead({ dataDir: values["data-dir"], trials, concurrencies });
console.log(
  `τ² airline, ${result.tasks} tasks × ${trials} trials; policy: createChatClient with an in-process canned fetch (no network), ` +
    `${TOOL_TURNS} tool calls (get_user_details / get_reservation_details) then text; scripted user: one line then stop.`,
);
console.log("Figures: ms per agent step (τ² steps), median / p90 across episodes of episode wall time ÷ steps. Grading IS included in (a) and (b); (d) is its share.");
console.log(formatOverheadTable(result));
const first = result.results.find((row) => row.concurrency === 1) ?? result.results[0];
if (first !== undefined) {
  const met = first.overhead.median < TARGET_MS_PER_STEP && first.overhead.p90 < TARGET_MS_PER_STEP;
  console.log(
    `Target < ${TARGET_MS_PER_STEP} ms runner overhead per step ((a)-(c), concurrency ${first.concurrency}, median ${first.overhead.median.toFixed(3)} / p90 ${first.overhead.p90.toFixed(3)} ms): ${met ? "MET" : "NOT MET"}.`,
  );
}
console.log(`Tool calls that returned an error: ${result.results.map((row) => `${row.toolErrors} at concurrency ${row.concurrency}`).join(", ")} (all ids exist in db.json).`);
console.log("At concurrency > 1 an episode's wall time includes the turns of the episodes interleaved with it; 'run wall ms/step' is the whole run ÷ all steps.");
