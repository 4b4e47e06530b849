/** Runs the sandbox-overhead benchmark: `npm run bench:sandbox [-- --seeds 200 --warmup 20]`. */
import os from "node:os";
import { parseArgs } from "node:util";
import { benchSandboxOverhead, formatSandboxOverheadTable } from "./sandbox-overhead-bench.js";

const { values } = parseArgs({ options: { seeds: { type: "string", default: "200" }, warmup: { type: "string", default: "20" } } });
const rows = await benchSandboxOverhead({ seeds: Number.parseInt(values.seeds, 10), warmup: Number.parseInt(values.warmup, 10) });
process.stdout.write(`Sandbox overhead per step (median runTool call; ${os.cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version})\n`);
process.stdout.write(formatSandboxOverheadTable(rows) + "\n");
