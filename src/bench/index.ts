/** Runs the benchmarks: `npm run bench [-- --data-dir ../shared/data/tau2 --repetitions 20]`. */
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchDomain, formatTable } from "./grading-bench.js";

const { values } = parseArgs({
  options: { "data-dir": { type: "string", default: "../shared/data/tau2" }, repetitions: { type: "string", default: "20" } },
});
const directory = values["data-dir"];
const repetitions = Number.parseInt(values.repetitions, 10);
console.log(`τ² grading benchmark — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}`);
const rows = ["airline", "retail"].map((domain) => benchDomain(domain, path.join(directory, domain), repetitions));
console.log(formatTable(rows));
