"""Chat rendering with the tokenizer's own template, and Qwen-style tool calls parsed back into OpenAI's shape."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

from jinja2 import TemplateError
from transformers import PreTrainedTokenizerBase

from .errors import BadRequest

TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
ROLES = ("system", "user", "assistant", "tool", "developer")


def _text(content: Any, param: str) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for index, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                raise BadRequest(f"{param}[{index}] must be a text part ({{type: 'text', text}})", f"{param}[{index}]", part)
            parts.append(part["text"])
        return "".join(parts)
    raise BadRequest(f"{param} must be a string, a list of text parts or null", param, content)


def template_messages(messages: Any) -> list[dict[str, Any]]:
    """OpenAI chat messages → the dictionaries chat templates read (text content, `tool_calls` kept as sent)."""
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages must be a non-empty list", "messages", messages)
    result: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise BadRequest(f"{where} must be an object", where, message)
        role = message.get("role")
        if role not in ROLES:
            raise BadRequest(f"{where}.role must be one of {list(ROLES)}, got {role!r}", f"{where}.role", role)
        entry: dict[str, Any] = {"role": "system" if role == "developer" else role, "content": _text(message.get("content"), f"{where}.content")}
        if role == "assistant" and message.get("tool_calls"):
            calls = message["tool_calls"]
            if not isinstance(calls, list):
                raise BadRequest(f"{where}.tool_calls must be a list", f"{where}.tool_calls", calls)
            for call_index, call in enumerate(calls):
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    raise BadRequest(
                        f"{where}.tool_calls[{call_index}] must be {{type: 'function', function: {{name, arguments}}}}",
                        f"{where}.tool_calls[{call_index}]",
                        call,
                    )
            entry["tool_calls"] = calls
        elif entry["content"] is None and role != "assistant":
            raise BadRequest(f"{where}.content must not be null for a {role} message", f"{where}.content", None)
        if role == "tool":
            entry["tool_call_id"] = message.get("tool_call_id")
        result.append(entry)
    return result


def render_prompt(tokenizer: PreTrainedTokenizerBase, messages: Any, tools: Any) -> list[int]:
    """The prompt's token ids: the tokenizer's chat template with `tools` and the generation prompt."""
    if tools is not None and not isinstance(tools, list):
        raise BadRequest("tools must be a list of function tools", "tools", tools)
    if tokenizer.chat_template is None:
        raise BadRequest("the model's tokenizer has no chat template", "model", None)
    try:
        text = tokenizer.apply_chat_template(
            template_messages(messages), tools=tools or None, add_generation_prompt=True, tokenize=False
        )
    except TemplateError as error:
        raise BadRequest(f"the chat template refused these messages: {error}", "messages", None) from error
    assert isinstance(text, str)
    return list(tokenizer.encode(text, add_special_tokens=False))


@dataclass
class ParsedCompletion:
    """A completion's text split into content and OpenAI tool calls; `error` says why tool calls did not parse."""

    content: str | None
    tool_calls: list[dict[str, Any]]
    error: str | None


def parse_completion(text: str) -> ParsedCompletion:
    blocks = list(TOOL_CALL.finditer(text))
    if not blocks:
        if "<tool_call>" in text:
            return ParsedCompletion(text, [], "a <tool_call> block is not closed by </tool_call>")
        return ParsedCompletion(text if text else None, [], None)
    calls: list[dict[str, Any]] = []
    for number, block in enumerate(blocks, start=1):
        try:
            payload = json.loads(block.group(1).strip())
        except json.JSONDecodeError as error:
            return ParsedCompletion(text, [], f"tool call {number} is not JSON: {error}")
        if not isinstance(payload, dict) or not isinstance(payload.get("name"), str):
            return ParsedCompletion(text, [], f"tool call {number} must be an object with a string 'name'")
        arguments = payload.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as error:
                return ParsedCompletion(text, [], f"tool call {number}'s arguments are not JSON: {error}")
        if not isinstance(arguments, dict):
            return ParsedCompletion(text, [], f"tool call {number}'s arguments must be an object")
        calls.append(
            {
                "id": f"call_{uuid.uuid4().hex[:24]}",
                "type": "function",
                "function": {"name": payload["name"], "arguments": json.dumps(arguments, ensure_ascii=False)},
            }
        )
    content = TOOL_CALL.sub("", text).strip()
    if "<tool_call>" in content:
        return ParsedCompletion(text, [], "a <tool_call> block is not closed by </tool_call>")
    return ParsedCompletion(content or None, calls, None)
