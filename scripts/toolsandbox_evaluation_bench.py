"""ToolSandbox's own evaluator on the conversations of grading_checks.json.gz, timed per conversation.

Run by `npm run bench:toolsandbox` (src/bench/toolsandbox-evaluation.ts) with ToolSandbox's source on PYTHONPATH and
its dependencies installed from PyPI; prints one JSON object: per check the similarity, the mapping and the seconds.
Time is frozen at the export's "now" (2026-11-26 15:00, TZ=UTC) so the scenarios match the export.
"""
import copy
import gzip
import json
import os
import random
import sys
import time


os.environ["TZ"] = "UTC"
time.tzset()
import langchain_core.messages  # noqa: E402,F401  (imported before time is frozen: pydantic cannot subclass a patched date)
import openai  # noqa: E402,F401
import polars as pl  # noqa: E402
from freezegun import freeze_time  # noqa: E402

checks_file = sys.argv[1]
with freeze_time("2026-11-26T15:00:00"):
    random.seed(42)
    from tool_sandbox.common.execution_context import DatabaseNamespace, ExecutionContext  # noqa: E402
    from tool_sandbox.common.tool_discovery import ToolBackend  # noqa: E402
    from tool_sandbox.scenarios import named_scenarios  # noqa: E402

    scenarios = named_scenarios(preferred_tool_backend=ToolBackend.DEFAULT)
# Evaluation reads no clock: it runs (and is timed) after time is unfrozen.
with gzip.open(checks_file) if checks_file.endswith(".gz") else open(checks_file) as handle:
    checks = json.load(handle)
results = []
for check in checks["scripted_checks"] + checks.get("unhelpful_agent_baseline", []):
    scenario = scenarios[check["scenario"]]
    context = copy.deepcopy(scenario.starting_context)
    if "database_history" in check:
        for namespace, rows in check["database_history"].items():
            context._dbs[DatabaseNamespace[namespace]] = pl.from_dicts(rows, schema=ExecutionContext.dbs_schemas[DatabaseNamespace[namespace]])
    else:
        rows = [{k: v for k, v in message.items() if k != "sandbox_message_index"} for message in check["appended_messages"]]
        context.add_to_database(DatabaseNamespace.SANDBOX, rows)
    started = time.perf_counter()
    result = scenario.evaluation.evaluate(context, scenario.max_messages)
    seconds = time.perf_counter() - started
    results.append({"scenario": check["scenario"], "similarity": result.similarity, "milestone_mapping": {str(k): list(v) for k, v in result.milestone_mapping.items()}, "seconds": seconds})
print(json.dumps({"results": results}))
