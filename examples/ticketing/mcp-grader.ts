/** The grader of the MCP ticketing target: reads the server's final state through the hidden `export_state` tool. */
import type { GradeInput } from "trace-agent/target";
import { gradeState, type ServiceState, type TaskData } from "./service.js";

export default async function grade(input: GradeInput<{ callTool(name: string, args: Record<string, unknown>): Promise<unknown> }>) {
  const exported = await input.state.callTool("export_state", {});
  return gradeState(JSON.parse(String(exported)) as ServiceState, input.task.data as TaskData);
}
