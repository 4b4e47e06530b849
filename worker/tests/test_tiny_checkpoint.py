"""init-tiny's tokenizer corpus: custom corpus files make their frequent words single tokens; a missing or empty
corpus file is refused naming it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from transformers import AutoTokenizer

from trace_worker.__main__ import main
from trace_worker.errors import BadRequest
from trace_worker.tiny_checkpoint import chat_corpus_documents, corpus_documents, project_corpus, train_tokenizer

WORDS = ["zorblax", "quuxifrag", "snarfwidget", "plimbotron"]
SMALL = ["--vocab-size", "400", "--hidden-size", "16", "--layers", "1", "--attention-heads", "2", "--key-value-heads", "1", "--head-dim", "8", "--intermediate-size", "32"]


def write_corpus(directory: Path) -> Path:
    """Documents (separated by blank lines) of the unusual words in rotating order, each word also after a space."""
    documents = [" ".join(WORDS[index:] + WORDS[:index]) + ".\n" + " ".join(reversed(WORDS)) for index in range(len(WORDS))]
    file = directory / "world.txt"
    file.write_text("\n\n".join(documents * 50) + "\n", encoding="utf-8")
    return file


def test_corpus_documents_split_at_blank_lines(tmp_path: Path) -> None:
    file = tmp_path / "docs.txt"
    file.write_text("first line\nsame document\n\n  \nsecond document\r\n\r\nthird\n", encoding="utf-8")
    documents = corpus_documents([file])
    assert documents[:3] == ["first line\nsame document", "second document", "third"]


def test_a_corpus_of_unusual_words_makes_them_single_tokens(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path)
    directory = tmp_path / "world-model"
    assert main(["init-tiny", str(directory), "--corpus", str(corpus), *SMALL]) == 0
    tokenizer = AutoTokenizer.from_pretrained(directory)
    for word in WORDS:
        assert len(tokenizer.encode(" " + word, add_special_tokens=False)) == 1, word
        assert len(tokenizer.encode(word, add_special_tokens=False)) == 1, word
    # The chat template's strings still get merges of their own, and the project's tokenizer splits these words.
    assert tokenizer.convert_tokens_to_ids("<|im_start|>") is not None
    project = train_tokenizer(project_corpus(), 400)
    assert all(len(project.encode(" " + word, add_special_tokens=False)) > 1 for word in WORDS)


def test_missing_or_empty_corpus_files_are_refused_naming_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-corpus.txt"
    assert main(["init-tiny", str(tmp_path / "m1"), "--corpus", str(missing), *SMALL]) == 2
    assert str(missing) in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \n\n", encoding="utf-8")
    assert main(["init-tiny", str(tmp_path / "m2"), "--corpus", str(write_corpus(tmp_path)), "--corpus", str(empty), *SMALL]) == 2
    error = capsys.readouterr().err
    assert str(empty) in error and "empty" in error
    assert not (tmp_path / "m1").exists() and not (tmp_path / "m2").exists()
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00 not text")
    with pytest.raises(BadRequest) as caught:
        corpus_documents([binary])
    assert caught.value.param == "corpus" and caught.value.value == str(binary)


def write_chat_corpus(directory: Path) -> Path:
    """JSON lines of one short conversation shape with varying identifiers."""
    lines = []
    for number in range(10, 60):
        messages = [
            {"role": "system", "content": "Only pending orders can be cancelled."},
            {"role": "user", "content": f"I am u{number}. Please cancel order #W{number}."},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "cancel_pending_order", "arguments": f'{{"order_id":"#W{number}"}}'}}]},
            {"role": "tool", "tool_call_id": "call_0", "content": f'{{"status":"cancelled","user_id":"u{number}"}}'},
            {"role": "assistant", "content": f"Order #W{number} is cancelled."},
        ]
        lines.append(json.dumps({"messages": messages, "tools": []}))
    file = directory / "chats.jsonl"
    file.write_text("\n".join(lines * 4) + "\n", encoding="utf-8")
    return file


def test_a_chat_corpus_with_merges_across_words_gives_long_tokens_and_whole_identifiers(tmp_path: Path) -> None:
    documents = chat_corpus_documents([write_chat_corpus(tmp_path)])
    assert "<|im_start|>assistant\n<tool_call>" in documents[0], "conversations are rendered with the chat template"
    across = train_tokenizer(documents, 600, merge_across_words=True)
    within = train_tokenizer(documents, 600)
    text = documents[0]
    assert len(across(text)["input_ids"]) * 3 < len(within(text)["input_ids"]) * 2, "repeated text becomes longer tokens"
    pieces = [across.decode([token]) for token in across("I am u17. Please cancel order #W42.")["input_ids"]]
    assert "#W42" in pieces, pieces
    # a prompt ending with the generation prompt tokenizes as a prefix of the conversation that continues it
    cut = text.index("<|im_start|>assistant\nOrder") + len("<|im_start|>assistant\n")
    assert across(text)["input_ids"][: len(across(text[:cut])["input_ids"])] == across(text[:cut])["input_ids"]
    # identifiers never merge with the text around them (a digit-bearing token is part of an identifier)
    assert all(re.fullmatch(r"[A-Za-z#_]*[0-9]+", piece) for piece in pieces if re.search(r"[0-9]", piece)), pieces


def test_split_digits_makes_every_digit_a_token_and_keeps_the_prefix_property(tmp_path: Path) -> None:
    documents = chat_corpus_documents([write_chat_corpus(tmp_path)])
    tokenizer = train_tokenizer(documents, 600, merge_across_words=True, split_digits=True)
    pieces = [tokenizer.decode([token]) for token in tokenizer("Pay #W42 with card_4821.")["input_ids"]]
    assert all(len(piece) == 1 for piece in pieces if re.search(r"[0-9]", piece)), pieces
    assert "".join(pieces) == "Pay #W42 with card_4821.", pieces
    assert [piece for piece in pieces if piece.isdigit()] == ["4", "2", "4", "8", "2", "1"], pieces
    text = documents[0]
    cut = text.index("<|im_start|>assistant\nOrder") + len("<|im_start|>assistant\n")
    assert tokenizer(text)["input_ids"][: len(tokenizer(text[:cut])["input_ids"])] == tokenizer(text[:cut])["input_ids"]
    plain = train_tokenizer(documents, 600, split_digits=True)
    assert [plain.decode([token]) for token in plain("order 4821")["input_ids"]][-4:] == ["4", "8", "2", "1"]


def test_a_chat_corpus_line_that_is_not_a_conversation_is_refused_naming_it(tmp_path: Path) -> None:
    file = tmp_path / "bad.jsonl"
    file.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n{"no": "messages"}\n', encoding="utf-8")
    with pytest.raises(BadRequest, match="bad.jsonl:2"):
        chat_corpus_documents([file])


def test_tied_embeddings_share_the_output_layer_and_identifiers_share_a_direction(tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    from trace_worker.tiny_checkpoint import IDENTIFIER, TinyModelShape, create_tiny_checkpoint

    documents = chat_corpus_documents([write_chat_corpus(tmp_path)])
    shape = TinyModelShape(vocab_size=600, hidden_size=32, layers=1, attention_heads=2, key_value_heads=1, head_dim=16, intermediate_size=64, tie_embeddings=True)
    directory = create_tiny_checkpoint(tmp_path / "tied", shape, documents, merge_across_words=True)
    model = AutoModelForCausalLM.from_pretrained(directory)
    tokenizer = AutoTokenizer.from_pretrained(directory)
    assert model.get_output_embeddings().weight.data_ptr() == model.get_input_embeddings().weight.data_ptr()
    embedding = model.get_input_embeddings().weight.detach()
    identifiers = [index for index in range(len(tokenizer)) if IDENTIFIER.fullmatch(tokenizer.decode([index]).strip())]
    others = [index for index in range(len(tokenizer)) if index not in identifiers]
    assert len(identifiers) >= 10
    # identifier rows have a shared component: their mean is far from the others' mean
    gap = (embedding[identifiers].mean(0) - embedding[others].mean(0)).norm()
    assert gap > 0.5 * embedding[others].norm(dim=1).mean(), float(gap)
