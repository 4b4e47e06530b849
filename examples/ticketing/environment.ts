/**
 * The ticketing service as a trace target module (`target.kind: "module"`): tools, tasks, a fresh state per episode,
 * tool execution, and a grader that compares the final state with the expected one.
 */
import type { TargetModule } from "trace-agent/target";
import { gradeState, initialState, POLICY, readTasks, runServiceTool, TOOLS, type ServiceState, type TaskData } from "./service.js";

const target: TargetModule<ServiceState> = {
  name: "ticketing",
  policy: POLICY,
  tools: TOOLS.map((tool) => ({ ...tool, parameters: tool.parameters as unknown as Record<string, unknown> })),
  tasks: readTasks(),
  createState: () => initialState(),
  runTool: ({ name, arguments: args, state }) => runServiceTool(state, name, args),
  grade: ({ state, task }) => gradeState(state, task.data as TaskData),
};

export default target;
