import json

import pytest

from trace_worker.chat_format import parse_completion, render_prompt, template_messages
from trace_worker.errors import BadRequest


def test_tool_calls_parse_into_openai_shape() -> None:
    text = 'Let me check.\n<tool_call>\n{"name": "get_user", "arguments": {"user_id": "u1"}}\n</tool_call>\n<tool_call>\n{"name": "noop", "arguments": {}}\n</tool_call>'
    parsed = parse_completion(text)
    assert parsed.error is None
    assert parsed.content == "Let me check."
    assert [call["function"]["name"] for call in parsed.tool_calls] == ["get_user", "noop"]
    assert json.loads(parsed.tool_calls[0]["function"]["arguments"]) == {"user_id": "u1"}
    assert all(call["type"] == "function" and call["id"].startswith("call_") for call in parsed.tool_calls)


def test_string_arguments_are_accepted_and_reencoded() -> None:
    parsed = parse_completion('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>')
    assert parsed.content is None
    assert json.loads(parsed.tool_calls[0]["function"]["arguments"]) == {"a": 1}


@pytest.mark.parametrize(
    "text, reason",
    [
        ("<tool_call>{not json}</tool_call>", "not JSON"),
        ('<tool_call>{"arguments": {}}</tool_call>', "string 'name'"),
        ('<tool_call>{"name": "f", "arguments": [1]}</tool_call>', "must be an object"),
        ('<tool_call>{"name": "f", "arguments": {}}', "not closed"),
    ],
)
def test_unparseable_tool_calls_stay_text_with_the_reason(text: str, reason: str) -> None:
    parsed = parse_completion(text)
    assert parsed.tool_calls == []
    assert parsed.content == text
    assert parsed.error is not None and reason in parsed.error


def test_plain_text_has_no_tool_calls() -> None:
    assert parse_completion("hello").content == "hello"
    assert parse_completion("").content is None


def test_rendering_round_trips_a_tool_call_and_its_result(engine) -> None:  # type: ignore[no-untyped-def]
    tools = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}}}]
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    text = engine.tokenizer.decode(render_prompt(engine.tokenizer, messages, tools))
    assert '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call><|im_end|>' in text
    assert "<tool_response>\ndone\n</tool_response>" in text
    assert '"name": "f"' in text.split("\n</tools>")[0]
    assert text.endswith("<|im_start|>assistant\n")
    # What the model would write parses back to the call the template rendered.
    block = text.split("<|im_start|>assistant\n")[1].split("<|im_end|>")[0]
    assert json.loads(parse_completion(block).tool_calls[0]["function"]["arguments"]) == {"a": 1}


@pytest.mark.parametrize(
    "messages, param",
    [
        ([], "messages"),
        ([{"role": "robot", "content": "x"}], "messages[0].role"),
        ([{"role": "user", "content": None}], "messages[0].content"),
        ([{"role": "user", "content": [{"type": "image_url"}]}], "messages[0].content[0]"),
        ([{"role": "assistant", "content": None, "tool_calls": [{"function": {}}]}], "messages[0].tool_calls[0]"),
    ],
)
def test_malformed_messages_name_the_field(messages, param) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BadRequest) as caught:
        template_messages(messages)
    assert caught.value.param == param
