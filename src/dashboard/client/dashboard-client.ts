/**
 * The dashboard page's script (compiled for the browser, served by the dashboard): reads the view named in the URL's
 * hash (`#/<run>/<view>?<query>`) from `/api/runs/<run>/<view>`, renders it as plain HTML tables with Vega-Lite charts
 * (vega-embed, loaded by the page from the dashboard itself), and polls every second so a running run updates live.
 */

/** vega-embed's global (its UMD build). */
declare const vegaEmbed: (element: HTMLElement, spec: unknown, options: Record<string, unknown>) => Promise<{ view: { finalize(): void } }>;

/** A view's JSON as the server's readers (src/dashboard/*-view.ts) type it. */
type Json = any;

interface Route {
  run: number;
  view: string;
  params: URLSearchParams;
}

const POLL_MILLISECONDS = 1000;
let views: string[] = ["stages", "rollouts", "analysis", "environments", "training", "routing", "comparison"];
let runs: Json[] = [];
let shown = "";
let charts: { finalize(): void }[] = [];
let busy = false;
/** A refresh was asked for while one was in flight. */
let again = false;

function route(): Route {
  const match = /^#\/(\d+)\/([a-z]+)(?:\?(.*))?$/.exec(location.hash);
  if (match === null) return { run: 0, view: "stages", params: new URLSearchParams() };
  return { run: Number(match[1]), view: match[2]!, params: new URLSearchParams(match[3] ?? "") };
}

function href(run: number, view: string, params: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") query.set(key, String(value));
  const text = query.toString();
  return `#/${run}/${view}${text === "" ? "" : `?${text}`}`;
}

function escape(value: string | number | boolean | null | undefined): string {
  return String(value ?? "").replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function number(value: unknown, digits = 3): string {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "–";
}

function percent(value: unknown): string {
  return typeof value === "number" ? `${(100 * value).toFixed(1)}%` : "–";
}

function table(headers: string[], rows: string[][], attributes = ""): string {
  const head = headers.map((header) => `<th>${escape(header)}</th>`).join("");
  const body = rows.map((row) => `<tr>${row.map((cell) => (cell.startsWith("<td") ? cell : `<td>${cell}</td>`)).join("")}</tr>`).join("");
  return `<table ${attributes}><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function numberCell(text: string): string {
  return `<td class="number">${text}</td>`;
}

function notices(data: Json): string {
  return ((data.notices ?? []) as string[]).map((notice) => `<div class="notice" data-testid="notice">${escape(notice)}</div>`).join("");
}

function pre(value: unknown): string {
  return `<pre>${escape(typeof value === "string" ? value : JSON.stringify(value, null, 2))}</pre>`;
}

/** A chart placeholder; `embedCharts` renders every one after the view's HTML is in place. */
const pendingCharts = new Map<string, unknown>();
function chart(spec: unknown, attributes = ""): string {
  if (spec === null || spec === undefined) return "";
  const id = `chart-${pendingCharts.size}`;
  pendingCharts.set(id, spec);
  return `<div class="chart" id="${id}" ${attributes}></div>`;
}

async function embedCharts(): Promise<void> {
  const entries = [...pendingCharts];
  pendingCharts.clear();
  for (const [id, spec] of entries) {
    const element = document.getElementById(id);
    if (element === null) continue;
    const result = await vegaEmbed(element, spec, { renderer: "svg", actions: false });
    charts.push(result.view);
    element.dataset.rendered = "true";
  }
}

function episodeLink(run: number, source: string, episode: Json, text: string): string {
  const params =
    source === "training"
      ? { source, adapter: episode.adapter, iteration: episode.iteration, group: episode.group, member: episode.member }
      : { source, environment: episode.environment, task: episode.taskId, trial: episode.trial };
  return `<a href="${href(run, "episode", params)}" data-testid="episode-link">${escape(text)}</a>`;
}

// -- Views ------------------------------------------------------------------------------------------------------------

function renderStages(data: Json, current: Route): string {
  const runRows = runs.map((run) => [
    `<a href="${href(run.id, "stages")}">${escape(run.label)}</a>`,
    escape(run.problem ?? `${run.stagesDone.length}/8 stages`),
    run.evaluation === null ? "–" : `${run.evaluation.base}/${run.evaluation.total} → ${run.evaluation.trace}/${run.evaluation.total}`,
  ]);
  const stages = (data.stages as Json[]).map((row) => [
    escape(row.stage),
    `<span class="${row.status === "done" ? "passed" : "failed"}">${escape(row.status)}</span>`,
    escape(row.marker?.startedAt ?? ""),
    escape(row.marker?.finishedAt ?? ""),
    numberCell(row.marker === null ? "" : number(row.marker.seconds, 1)),
    escape(row.marker?.summary ?? ""),
  ]);
  const idle = data.idleSeconds === null ? "" : `<p>last change ${number(data.idleSeconds, 0)} s ago</p>`;
  return `${notices(data)}
    ${runs.length > 1 ? `<h2>runs</h2>${table(["run", "stages", "evaluation: base → TRACE solved"], runRows, 'data-testid="runs-table"')}` : ""}
    <h2>stages of ${escape(runs[current.run]?.label ?? "")}</h2><p>${escape(data.root)}</p>${idle}
    ${table(["stage", "status", "started", "finished", "seconds", "summary"], stages, 'data-testid="stages-table"')}
    <h2>configuration</h2>${data.configuration === null ? "<p>none</p>" : pre(data.configuration)}`;
}

function select(name: string, values: string[], chosen: string | null, labels: Record<string, string> = {}): string {
  const options = ["", ...values].map((value) => `<option value="${escape(value)}" ${value === (chosen ?? "") ? "selected" : ""}>${escape(value === "" ? `any ${name}` : (labels[value] ?? value))}</option>`);
  return `<select name="${name}" data-filter="${name}">${options.join("")}</select>`;
}

function renderRollouts(data: Json, current: Route): string {
  const params = current.params;
  const training = data.source === "training";
  const adapter = (data.adapters as Json[]).find((row) => row.adapter === params.get("adapter"));
  const filters = training
    ? [select("adapter", (data.adapters as Json[]).map((row) => row.adapter as string), params.get("adapter")), select("iteration", ((adapter?.iterations ?? []) as number[]).map(String), params.get("iteration"))]
    : [
        select("environment", data.environments, params.get("environment")),
        select("status", ["finished", "failed", "running", "pending"], params.get("status")),
        select("termination", data.terminations, params.get("termination")),
        select("success", ["true", "false"], params.get("success"), { true: "solved", false: "not solved" }),
        `<input name="task" data-filter="task" placeholder="task id contains" value="${escape(params.get("task") ?? "")}">`,
      ];
  const sources = `<select data-filter="source">${(["rollouts", "evaluation", "comparison", "training"] as const)
    .map((source) => `<option value="${source}" ${source === data.source ? "selected" : ""} ${(data.sources as string[]).includes(source) ? "" : "disabled"}>${source}</option>`)
    .join("")}</select>`;
  const rows = (data.episodes as Json[]).map((episode) =>
    training
      ? [
          escape(episode.adapter),
          numberCell(String(episode.iteration)),
          numberCell(String(episode.group)),
          numberCell(String(episode.member)),
          escape(episode.taskId),
          escape(episode.kept ? "kept" : "dropped"),
          numberCell(number(episode.advantage)),
          numberCell(episodeLink(current.run, "training", episode, number(episode.reward))),
          escape(episode.termination ?? ""),
          numberCell(String(episode.completionTokens ?? "–")),
        ]
      : [
          escape(episode.environment),
          escape(episode.taskId),
          numberCell(String(episode.trial)),
          numberCell(episodeLink(current.run, data.source, episode, episode.status === "finished" ? number(episode.reward) : episode.status)),
          escape(episode.termination ?? ""),
          numberCell(String(episode.completionTokens ?? "–")),
          escape(episode.error ?? ""),
        ],
  );
  const headers = training
    ? ["adapter", "iteration", "group", "member", "task", "group kept", "advantage", "reward", "termination", "completion tokens"]
    : ["environment", "task", "trial", "reward", "termination", "completion tokens", "error"];
  const last = Math.min(data.offset + data.limit, data.total);
  const page = (offset: number) => href(current.run, "rollouts", { ...Object.fromEntries(params), offset });
  const pager = `${data.offset > 0 ? `<a href="${page(Math.max(0, data.offset - data.limit))}">previous</a>` : ""} ${last < data.total ? `<a href="${page(last)}" data-testid="next-page">next</a>` : ""}`;
  return `${notices(data)}<div class="filters">${sources}${filters.join("")}</div>
    <p data-testid="episode-count">${data.total} episodes${data.total > 0 ? ` (showing ${data.offset + 1}–${last})` : ""} ${pager}</p>
    ${table(headers, rows, 'data-testid="episodes-table"')}`;
}

function renderMessage(message: Json): string {
  const calls = ((message.tool_calls ?? []) as Json[])
    .map((call) => {
      let args: unknown = call.function?.arguments;
      try {
        args = JSON.parse(String(args));
      } catch {
        // not JSON: shown as sent
      }
      return `<div data-testid="tool-call">→ <strong>${escape(call.function?.name)}</strong>(${escape(JSON.stringify(args, null, 1))})</div>`;
    })
    .join("");
  const content = typeof message.content === "string" ? message.content : message.content === null || message.content === undefined ? "" : JSON.stringify(message.content);
  const tokens = message.tokens === undefined ? "" : ` <small>(${message.tokens.completionTokenIds.length} sampled tokens)</small>`;
  return `<div class="message ${escape(message.role)}" data-testid="message"><span class="role">${escape(message.role)}${message.tool_call_id === undefined ? "" : ` (${escape(message.tool_call_id)})`}</span>${tokens}\n${escape(content)}${calls}</div>`;
}

function renderEpisode(data: Json, current: Route): string {
  const training = current.params.get("source") === "training";
  const key = training ? `${data.adapter} iteration ${data.iteration} group ${data.group} member ${data.member} (${data.taskId})` : `${data.environment} / ${data.taskId} / trial ${data.trial}`;
  const breakdown = Object.entries((data.rewardInfo?.breakdown ?? {}) as Record<string, number>).map(([name, value]) => [escape(name), numberCell(number(value))]);
  const back = training ? href(current.run, "rollouts", { source: "training", adapter: data.adapter, iteration: data.iteration }) : href(current.run, "rollouts", { source: current.params.get("source") ?? "rollouts", environment: data.environment });
  return `<p><a href="${back}">← episodes</a></p><h2 data-testid="episode-key">${escape(key)}</h2>
    <p>reward <strong data-testid="episode-reward">${number(data.reward)}</strong>, ${data.success === true ? '<span class="passed">solved</span>' : '<span class="failed">not solved</span>'}, termination ${escape(data.termination ?? data.status)}${data.error ? `, error: ${escape(String(data.error).split("\n")[0])}` : ""}</p>
    ${breakdown.length === 0 ? "" : `<h3>reward breakdown</h3>${table(["component", "value"], breakdown, 'data-testid="reward-breakdown"')}`}
    ${data.rewardInfo?.details === undefined ? "" : `<h3>grading details</h3>${pre(data.rewardInfo.details)}`}
    ${data.sourceRewardInfo ? `<h3>environment's reward record</h3>${pre(data.sourceRewardInfo)}` : ""}
    <h3>conversation</h3>${((data.messages ?? []) as Json[]).map(renderMessage).join("")}
    ${data.metadata ? `<h3>metadata</h3>${pre(data.metadata)}` : ""}`;
}

function renderAnalysis(data: Json, current: Route): string {
  if (data.scores === null) return notices(data);
  const { scores } = data;
  const rows = (scores.capabilities as Json[]).map((capability) => {
    const lacking = (data.lacking[capability.skill] ?? []) as Json[];
    const perRun = (capability.per_run as Json[]).map((run, index) => (run === null ? `run ${index + 1}: –` : `run ${run.attempt}: Cov ${number(run.cov)}, Δ ${number(run.delta)}${run.passed ? "" : " ✗"}`)).join("<br>");
    const links = lacking.map((row) => episodeLink(current.run, "rollouts", row, `${row.environment}/${row.taskId}#${row.trial}`)).join(" ");
    return [
      `<strong data-testid="capability-name">${escape(capability.skill)}</strong><br><small>${escape(capability.description)}</small>`,
      numberCell(`${number(capability.mean_cov)} ± ${number(capability.std_cov)}`),
      numberCell(`${number(capability.mean_delta)} ± ${number(capability.std_delta)}`),
      numberCell(`${capability.n_runs_passed}/${capability.n_runs_total}`),
      `<span class="${capability.status === "kept" ? "passed" : "failed"}" data-testid="capability-status">${escape(capability.status)}</span>`,
      capability.kept_in_resamples === undefined ? "–" : numberCell(`${percent(capability.kept_in_resamples)}${(data.marginal as string[]).includes(capability.skill) ? " (marginal)" : ""}`),
      perRun,
      `<span data-testid="lacking-count">${lacking.length}</span> ${links}`,
    ];
  });
  const thresholds = scores.thresholds;
  return `${notices(data)}<h2>capabilities (${escape(data.directory)}, ${escape(scores.labeler ?? "")})</h2>
    <p data-testid="thresholds">kept when Cov ≥ ${thresholds.coverage} and Δ ≥ ${thresholds.gap} in at least ${thresholds.minRuns} of ${scores.runs} labeling runs</p>
    ${table(["capability", "Cov (mean ± sd)", "Δ (mean ± sd)", "runs passed", "status", "kept in resamples", "per labeling run", "LACKING failed trajectories"], rows, 'data-testid="capabilities-table"')}`;
}

function renderEnvironments(data: Json, current: Route): string {
  const cards = (data.environments as Json[]).map((card) => {
    const calibration = card.entry.calibration;
    const stats = calibration === undefined ? "<p>no calibration (hand-written environment)</p>" : table(["mean reward", "success rate", "reward sd", "all-zero groups", "all-one groups", "seeds × samples"], [[numberCell(number(calibration.meanReward)), numberCell(percent(calibration.successRate)), numberCell(number(calibration.rewardStd)), numberCell(percent(calibration.allZeroFraction)), numberCell(percent(calibration.allOneFraction)), numberCell(`${calibration.seeds} × ${calibration.samples}`)]], 'data-testid="calibration-table"');
    const gates = (card.gates as Json[]).map((gate) => [escape(gate.name), `<span class="${gate.passed ? "passed" : "failed"}">${gate.passed ? "pass" : "fail"}</span>`, escape((gate.details as string[]).join("; "))]);
    const examples = (kind: string, episodes: Json[]) => `${kind}: ${episodes.length === 0 ? "none sampled" : episodes.map((episode) => episodeLink(current.run, "training", episode, `${episode.taskId} (iteration ${episode.iteration}, reward ${number(episode.reward)})`)).join(", ")}`;
    return `<section data-testid="environment" data-capability="${escape(card.entry.capability)}"><h2>${escape(card.entry.capability)}</h2><p>${escape(card.entry.description)}</p>
      <p>source: ${escape(card.entry.source)} (${escape(card.entry.module)}); validation: ${(card.entry.validation as Json[]).map((row) => `seed ${row.seed} → ${number(row.reward)}`).join(", ")}</p>
      ${stats}<div class="charts">${chart(card.histogram, 'data-chart="histogram"')}</div>
      ${gates.length === 0 ? "" : `<h3>gates of the kept attempt</h3>${table(["gate", "result", "details"], gates, 'data-testid="gates-table"')}`}
      ${(card.attempts as Json[]).length > 1 ? `<p>attempts: ${(card.attempts as Json[]).map((attempt) => `${attempt.attempt}: ${attempt.passed ? "passed" : escape(attempt.problem ?? "failed")}`).join("; ")}</p>` : ""}
      <p>${examples("solved", card.solved)}</p><p>${examples("failed", card.failed)}</p>
      ${card.source === null ? "" : `<details><summary>module source</summary>${pre(card.source)}</details>`}</section>`;
  });
  const skipped = (data.skipped as Json[]).map((row) => [escape(row.capability), escape(row.reason)]);
  return `${notices(data)}${cards.join("")}${skipped.length === 0 ? "" : `<h2>skipped</h2>${table(["capability", "reason"], skipped)}`}`;
}

function renderTraining(data: Json, current: Route): string {
  const sections = (data.adapters as Json[]).map((adapter) => {
    const curves = (adapter.curves as Json[]).map((curve) => chart(curve.spec, `data-adapter="${escape(adapter.capability)}" data-metric="${escape(curve.metric)}" data-points="${curve.points}"`)).join("");
    const stored = new Map((adapter.storedIterations as Json[]).map((row) => [row.iteration, row]));
    const rows = (adapter.iterations as Json[]).map((row) => [
      numberCell(String(row.iteration)),
      numberCell(`${number(row.rewardMean)} ± ${number(row.rewardStd)}`),
      numberCell(`${row.groupsKept}/${row.groupsKept + row.groupsDropped}`),
      numberCell(number(row.loss, 4)),
      numberCell(number(row.seconds, 1)),
      stored.has(row.iteration) ? `<a href="${href(current.run, "rollouts", { source: "training", adapter: adapter.capability, iteration: row.iteration })}" data-testid="iteration-rollouts">${stored.get(row.iteration).episodes} episodes</a>` : "not kept",
    ]);
    const status = adapter.trained === null ? `training: ${adapter.iterations.length} iterations so far` : `trained: ${adapter.trained.iterations} iterations, reward ${number(adapter.trained.firstRewardMean)} → ${number(adapter.trained.lastRewardMean)}`;
    return `<section data-testid="adapter" data-capability="${escape(adapter.capability)}"><h2>${escape(adapter.capability)}</h2><p>${escape(status)}</p>
      ${(adapter.problems as string[]).map((problem) => `<div class="error">${escape(problem)}</div>`).join("")}
      <div class="charts">${curves}</div>
      ${table(["iteration", "reward mean ± sd", "groups kept", "loss", "seconds", "sampled episodes"], rows, 'data-testid="iterations-table"')}</section>`;
  });
  return `${notices(data)}${sections.join("")}`;
}

function renderRouting(data: Json): string {
  const routing = data.routing;
  const results = data.results;
  const options = routing === null ? "" : table(["label", "capability", "model", "tasks"], (data.routes as Json[]).map((route) => [escape(route.label), escape(route.option), escape((routing.options as Json[]).find((option) => option.label === route.label)?.model ?? ""), numberCell(String(route.tasks))]), 'data-testid="routes-table"');
  const accuracy = routing?.accuracy === undefined || routing === null ? "<p>routing accuracy: no labels (the target's tasks do not name their capability)</p>" : `<p data-testid="routing-accuracy">routing accuracy ${routing.accuracy.correct}/${routing.accuracy.tasks} (${percent(routing.accuracy.accuracy)}); ${escape(routing.accuracy.note)}</p>`;
  // A graded reward (ToolSandbox's similarity) gets its mean beside the solved counts, as eval/report.md shows it.
  const graded = data.gradedReward === true;
  const rewardCells = (domain: Json) => (graded ? [numberCell(domain.meanReward === undefined ? "-" : number(domain.meanReward.base)), numberCell(domain.meanReward === undefined ? "-" : number(domain.meanReward.trace))] : []);
  const domains =
    results === null
      ? ""
      : table(
          ["domain", "base solved", "TRACE solved", ...(graded ? ["base mean reward", "TRACE mean reward"] : [])],
          [
            ...(results.domains as Json[]).map((domain) => [escape(domain.domain), numberCell(`${domain.base.passed}/${domain.base.total}`), numberCell(`${domain.trace.passed}/${domain.trace.total}`), ...rewardCells(domain)]),
            ["overall", numberCell(`${results.overall.base.passed}/${results.overall.base.total}`), numberCell(`${results.overall.trace.passed}/${results.overall.trace.total}`), ...(graded ? ["", ""] : [])],
          ],
          'data-testid="evaluation-table"',
        );
  const kinds = results === null ? [] : (results.domains as Json[]).flatMap((domain) => Object.entries((domain.groups ?? {}) as Record<string, Json>).map(([kind, counts]) => [escape(domain.domain), escape(kind), numberCell(`${counts.base.passed}/${counts.base.total}`), numberCell(`${counts.trace.passed}/${counts.trace.total}`)]));
  const kindsTable = kinds.length === 0 ? "" : table(["domain", "kind of task", "base solved", "TRACE solved"], kinds, 'data-testid="evaluation-kinds-table"');
  const capabilities = results === null ? "" : table(["capability", "held-out seeds", "base reward", "adapter reward"], (results.capabilities as Json[]).map((row) => [escape(row.capability), escape((row.seeds as number[]).join(", ")), numberCell(number(row.before)), numberCell(number(row.after))]), 'data-testid="capabilities-evaluation"');
  const tasks = table(["environment", "task", "base reward", "TRACE reward"], (data.tasks as Json[]).map((task) => [escape(task.environment), escape(task.taskId), numberCell(number(task.base)), numberCell(number(task.trace))]), 'data-testid="tasks-table"');
  return `${notices(data)}<h2>routing</h2>${options}${accuracy}<div class="charts">${chart(data.charts.routes, 'data-chart="routes"')}${chart(data.charts.tasks, 'data-chart="tasks"')}</div>
    <h2>evaluation</h2>${domains}${kindsTable}${capabilities}<h3>per task</h3>${tasks}`;
}

function renderComparison(data: Json): string {
  const summary = (value: Json) => `${percent(value.mean)} ± ${percent(value.standardDeviation)} [${percent(value.minimum)}, ${percent(value.maximum)}]`;
  const rows = (data.methods as Json[]).map((method) => [
    escape(method.label),
    escape(method.method),
    escape((method.seeds as number[]).join(", ")),
    numberCell(summary(method.overall)),
    ...(data.domains as string[]).map((domain) => numberCell(percent(method.domains[domain]?.mean))),
    numberCell(`${number(method.spent.mean, 0)} / ${data.budget}`),
    escape((method.notes as string[]).join("; ")),
  ]);
  const kinds = (data.kinds as Json[])
    .map((summary) => {
      const header = ["method", ...(summary.kinds as Json[]).map((kind) => `${kind.kind} (${kind.episodes}${kind.maximumEpisodes === kind.episodes ? "" : `–${kind.maximumEpisodes}`})`)];
      const kindRows = (summary.methods as Json[]).map((method) => [escape(method.label), ...(method.rates as Json[]).map((rate) => numberCell(rate === null ? "-" : `${percent(rate.mean)} ± ${percent(rate.standardDeviation)}`))]);
      return `<h3>pass rate per kind of task: ${escape(summary.domain)}</h3>${table(header, kindRows, `data-testid="kinds-table" data-domain="${escape(summary.domain)}"`)}`;
    })
    .join("");
  const points = (value: number) => `${value >= 0 ? "+" : "−"}${Math.abs(value * 100).toFixed(1)}`;
  const pairedRows = (data.paired as Json[]).map((method) => [
    escape(method.label),
    numberCell(`${points(method.summary.mean)} ± ${(method.summary.standardDeviation * 100).toFixed(1)}${method.interval === null || method.interval === undefined ? "" : ` (${points(method.interval.low)} to ${points(method.interval.high)})`}`),
    escape((method.seeds as number[]).map((seed, index) => `${seed}: ${points((method.differences as number[])[index]!)}`).join(", ")),
    numberCell(`${method.ahead} / ${method.behind} of ${(method.seeds as number[]).length}`),
  ]);
  const graded = data.graded as string[];
  const rewardRows = (data.methods as Json[]).map((method) => [escape(method.label), ...graded.map((domain) => numberCell(`${number(method.meanRewards[domain]?.mean)} ± ${number(method.meanRewards[domain]?.standardDeviation)}`))]);
  const rewards = graded.length === 0 ? "" : `<h3>mean reward (graded: a pass above is a reward of 1)</h3>${table(["method", ...graded.map((domain) => `${domain} mean reward`)], rewardRows, 'data-testid="rewards-table"')}`;
  const paired = pairedRows.length === 0 ? "" : `<h3>TRACE against each method, paired by seed</h3>${table(["method", "TRACE − method (points, 95% interval)", "per seed", "TRACE ahead / behind"], pairedRows, 'data-testid="paired-table"')}`;
  return `${notices(data)}${(data.methods as Json[]).length === 0 ? "" : table(["method", "id", "seeds", "pass rate: mean ± sd [min, max]", ...(data.domains as string[]), "budget spent", "notes"], rows, 'data-testid="methods-table"')}${rewards}${paired}${kinds}
    <div class="charts">${chart(data.curves, 'data-chart="curves"')}</div>`;
}

const RENDERERS: Record<string, (data: Json, current: Route) => string> = {
  stages: renderStages,
  rollouts: renderRollouts,
  episode: renderEpisode,
  analysis: renderAnalysis,
  environments: renderEnvironments,
  training: renderTraining,
  routing: (data) => renderRouting(data),
  comparison: (data) => renderComparison(data),
};

// -- Page -------------------------------------------------------------------------------------------------------------

function renderHeader(current: Route): void {
  const runsElement = document.getElementById("runs")!;
  runsElement.innerHTML =
    runs.length > 1
      ? `<select data-testid="run-select">${runs.map((run) => `<option value="${run.id}" ${run.id === current.run ? "selected" : ""}>${escape(run.label)}</option>`).join("")}</select>`
      : escape(runs[0]?.label ?? "");
  const viewsElement = document.getElementById("views")!;
  viewsElement.innerHTML = views.map((view) => `<a href="${href(current.run, view)}" class="${view === current.view ? "current" : ""}" data-view-link="${view}">${view}</a>`).join("");
}

/** Reads the current view; renders it when its data changed (or `force`). */
async function refresh(force: boolean): Promise<void> {
  // A navigation while a refresh is in flight renders right after it, not at the next poll.
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  try {
    const hash = location.hash;
    const current = route();
    const listing = (await (await fetch("/api/runs")).json());
    runs = listing.runs;
    views = listing.views;
    renderHeader(current);
    const response = await fetch(`/api/runs/${current.run}/${current.view}?${current.params.toString()}`);
    const text = await response.text();
    const key = `${hash}\n${text}`;
    if (!force && key === shown) return;
    shown = key;
    const main = document.getElementById("view")!;
    const data = JSON.parse(text);
    for (const view of charts) view.finalize();
    charts = [];
    pendingCharts.clear();
    const problem = runs[current.run]?.problem;
    if (!response.ok) main.innerHTML = `<div class="error" data-testid="error">${escape(data.error)}</div>`;
    else main.innerHTML = (problem ? `<div class="error" data-testid="error">${escape(problem)}</div>` : "") + (RENDERERS[current.view] ?? (() => `<div class="error">no view ${escape(current.view)}</div>`))(data, current);
    main.dataset.view = current.view;
    // The address this render is of: a reader waiting for a view knows it is not an earlier address's render.
    main.dataset.hash = hash;
    await embedCharts();
    main.dataset.ready = String(Date.now());
    document.getElementById("status")!.textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    document.getElementById("status")!.textContent = `dashboard unreachable: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    busy = false;
    if (again) {
      again = false;
      void refresh(false);
    }
  }
}

document.addEventListener("change", (event) => {
  const target = event.target as HTMLElement;
  const current = route();
  if (target.dataset.testid === "run-select") {
    location.hash = href(Number((target as HTMLSelectElement).value), current.view);
    return;
  }
  const filter = target.dataset.filter;
  if (filter === undefined) return;
  const params = Object.fromEntries(current.params);
  delete params.offset;
  if (filter === "source") {
    location.hash = href(current.run, "rollouts", { source: (target as HTMLSelectElement).value });
    return;
  }
  params[filter] = (target as HTMLInputElement).value;
  if (filter === "adapter") delete params.iteration;
  location.hash = href(current.run, "rollouts", params);
});

window.addEventListener("hashchange", () => void refresh(true));
void refresh(true);
setInterval(() => void refresh(false), POLL_MILLISECONDS);
