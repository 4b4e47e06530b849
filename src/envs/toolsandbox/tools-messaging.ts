/** ToolSandbox's messaging tools (`tool_sandbox/tools/messaging.py`). */

import { PythonException } from "./python-values.js";
import { filterRows, rowsToPython, searchContacts, validatePhoneNumber } from "./tools-contact.js";
import { getBooleanSetting } from "./tools-setting.js";
import { NOT_GIVEN } from "./python-values.js";
import type { ToolArgument, ToolArguments, ToolImplementation } from "./tool-runtime.js";
import { validateTimestamp } from "./tools-reminder.js";

const MESSAGE_FLOAT_COLUMNS = new Set(["creation_timestamp"]);

export const MESSAGING_TOOLS: Record<string, ToolImplementation> = {
  send_message_with_phone_number: {
    typechecked: true,
    run(world, args) {
      const phoneNumber = args.phone_number as string;
      validatePhoneNumber(phoneNumber);
      if (!getBooleanSetting(world, "cellular")) throw new PythonException("ConnectionError", "Cellular service is not enabled");
      const messageId = world.newId();
      const none: ToolArguments = { person_id: NOT_GIVEN, name: NOT_GIVEN, phone_number: NOT_GIVEN, relationship: NOT_GIVEN, is_self: NOT_GIVEN };
      const self = searchContacts(world, { ...none, is_self: true });
      if (self.length !== 1) throw new PythonException("polars.exceptions.DuplicateError", `1 and only 1 self entry should exist in contacts database, instead found ${self.length}`);
      const recipient = searchContacts(world, { ...none, phone_number: phoneNumber });
      world.add("MESSAGING", [
        {
          message_id: messageId,
          sender_person_id: self[0]!.person_id ?? null,
          sender_phone_number: self[0]!.phone_number ?? null,
          recipient_person_id: recipient.length === 0 ? null : (recipient[0]!.person_id ?? null),
          recipient_phone_number: phoneNumber,
          content: args.content as string,
          creation_timestamp: world.clock.now,
        },
      ]);
      return messageId;
    },
  },
  search_messages: {
    typechecked: true,
    run(world, args) {
      validatePhoneNumber(args.sender_phone_number as ToolArgument);
      validatePhoneNumber(args.recipient_phone_number as ToolArgument);
      validateTimestamp(args.creation_timestamp_lowerbound as ToolArgument, "creation_timestamp_lowerbound");
      validateTimestamp(args.creation_timestamp_upperbound as ToolArgument, "creation_timestamp_upperbound");
      const rows = filterRows(world.database("MESSAGING"), [
        { column: "message_id", value: args.message_id as ToolArgument, kind: "exact" },
        { column: "sender_person_id", value: args.sender_person_id as ToolArgument, kind: "exact" },
        { column: "sender_phone_number", value: args.sender_phone_number as ToolArgument, kind: "exact" },
        { column: "recipient_person_id", value: args.recipient_person_id as ToolArgument, kind: "exact" },
        { column: "recipient_phone_number", value: args.recipient_phone_number as ToolArgument, kind: "exact" },
        { column: "content", value: args.content as ToolArgument, kind: "fuzzy", threshold: 50 },
        { column: "creation_timestamp", value: args.creation_timestamp_lowerbound as ToolArgument, kind: "at_least" },
        { column: "creation_timestamp", value: args.creation_timestamp_upperbound as ToolArgument, kind: "at_most" },
      ]);
      return rowsToPython(rows, MESSAGE_FLOAT_COLUMNS);
    },
  },
};
