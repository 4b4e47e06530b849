"""Tiny Qwen3-style checkpoints the project makes itself: random weights, a byte-level BPE tokenizer trained with
`tokenizers` on a frozen sample of the project's own text (or on corpus files, `init-tiny --corpus FILE`), and a chat template of Qwen3's
shape, saved as an ordinary Hugging Face checkpoint directory that loads like any other."""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM, Qwen3MoeConfig, Qwen3MoeForCausalLM

from .chat_format import template_messages
from .chat_template import TINY_CHAT_TEMPLATE
from .errors import BadRequest

SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
]


# Chat-shaped text so that the template's own strings and JSON tool calls get merges of their own.
CHAT_SAMPLES = [
    '<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.<|im_end|>\n',
    '<|im_start|>user\nPlease look up my reservation.<|im_end|>\n<|im_start|>assistant\n',
    '<tool_call>\n{"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}\n</tool_call><|im_end|>\n',
    '<|im_start|>user\n<tool_response>\n{"reservation_id": "4WQ150", "status": "confirmed"}\n</tool_response><|im_end|>\n',
]


@dataclass(frozen=True)
class TinyModelShape:
    """Sizes of a tiny checkpoint. `experts > 0` makes a Qwen3-MoE model."""

    vocab_size: int = 1024
    hidden_size: int = 64
    layers: int = 2
    attention_heads: int = 4
    key_value_heads: int = 2
    head_dim: int = 16
    intermediate_size: int = 192
    experts: int = 0
    experts_per_token: int = 2
    expert_intermediate_size: int = 64
    max_positions: int = 4096
    seed: int = 0
    #: True ties the output layer to the input embedding (as Qwen3-0.6B does): copying a token seen in the context then
    #: needs only attention, which a tiny model learns far faster than a mapping between two unrelated random tables.
    tie_embeddings: bool = False

    def check(self) -> None:
        for name, value in asdict(self).items():
            if name == "tie_embeddings":
                continue
            if name in ("experts", "seed"):
                if value < 0:
                    raise BadRequest(f"{name} must be ≥ 0, got {value}", name, value)
            elif value <= 0:
                raise BadRequest(f"{name} must be > 0, got {value}", name, value)
        if self.vocab_size < 256 + len(SPECIAL_TOKENS):
            raise BadRequest(
                f"vocab_size must be at least {256 + len(SPECIAL_TOKENS)} (bytes + special tokens), got {self.vocab_size}",
                "vocab_size",
                self.vocab_size,
            )
        if self.attention_heads % self.key_value_heads != 0:
            raise BadRequest(
                f"attention_heads ({self.attention_heads}) must be a multiple of key_value_heads ({self.key_value_heads})",
                "key_value_heads",
                self.key_value_heads,
            )
        if self.experts and self.experts_per_token > self.experts:
            raise BadRequest(
                f"experts_per_token ({self.experts_per_token}) exceeds experts ({self.experts})",
                "experts_per_token",
                self.experts_per_token,
            )


#: The default tokenizer corpus, frozen so that a tiny checkpoint (and so every test's random policy) does not change
#: whenever the project's text does: the first 2,000 characters of each of the project's markdown files and TypeScript
#: and Python sources as of 2026-11-26, a JSON list of strings, gzipped.
DEFAULT_CORPUS = Path(__file__).with_name("tiny_corpus.json.gz")


def project_corpus(file: Path = DEFAULT_CORPUS) -> list[str]:
    """The default corpus: the frozen sample of the project's own text, plus the chat samples."""
    texts = json.loads(gzip.decompress(file.read_bytes()).decode("utf-8"))
    return list(texts) + CHAT_SAMPLES * 50


def corpus_documents(files: list[Path]) -> list[str]:
    """The documents of custom corpus files, for training the tokenizer instead of the project's text (the chat
    samples are added either way): UTF-8 text, documents separated by blank lines. (A file of one document per line
    reads as one large document, which trains the same tokenizer: BPE counts words, not documents.)"""
    if not files:
        raise BadRequest("name at least one corpus file", "corpus", [])
    documents: list[str] = []
    for file in files:
        if not file.is_file():
            raise BadRequest(f"corpus file {file} does not exist (or is not a file)", "corpus", str(file))
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise BadRequest(f"corpus file {file} is not UTF-8 text: {error}", "corpus", str(file)) from error
        except OSError as error:
            raise BadRequest(f"corpus file {file} cannot be read: {error}", "corpus", str(file)) from error
        pieces = [piece.strip("\n") for piece in re.split(r"\n(?:[ \t]*\n)+", text.replace("\r\n", "\n"))]
        pieces = [piece for piece in pieces if piece.strip()]
        if not pieces:
            raise BadRequest(f"corpus file {file} is empty", "corpus", str(file))
        documents.extend(pieces)
    return documents + CHAT_SAMPLES * 50


def chat_corpus_documents(files: list[Path]) -> list[str]:
    """Conversations rendered with the tiny chat template, one document each: JSON lines with `messages` (OpenAI
    shape, tool-call arguments as JSON text) and optional `tools`, so the tokenizer learns the text exactly as the
    model will see it."""
    blank = Tokenizer(models.BPE())
    blank.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    renderer = PreTrainedTokenizerFast(tokenizer_object=blank, chat_template=TINY_CHAT_TEMPLATE)
    documents: list[str] = []
    for file in files:
        if not file.is_file():
            raise BadRequest(f"chat corpus file {file} does not exist (or is not a file)", "chat_corpus", str(file))
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                messages = template_messages(record["messages"])
            except (ValueError, KeyError, TypeError, BadRequest) as error:
                raise BadRequest(f"{file}:{number} is not a JSON object with chat `messages`: {error}", "chat_corpus", f"{file}:{number}") from error
            documents.append(str(renderer.apply_chat_template(messages, tools=record.get("tools") or None, tokenize=False)))
        if not documents:
            raise BadRequest(f"chat corpus file {file} holds no conversations", "chat_corpus", str(file))
    return documents + CHAT_SAMPLES * 50


#: Identifier-like text (letters or #_ then digits: u15, #W23, card_4821): kept whole by the tokenizer, marked in the embedding.
IDENTIFIER = re.compile(r"[A-Za-z#_]*[0-9]+")


def train_tokenizer(texts: list[str], vocab_size: int, merge_across_words: bool = False, split_digits: bool = False) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer (as Qwen's) trained on `texts`, with ChatML special tokens and the tiny template.
    `merge_across_words` lets merges span spaces and punctuation (only identifiers are split off), so text that
    repeats in the corpus, such as a fixed system prompt or a JSON key sequence, becomes a few long tokens.
    `split_digits` makes every digit a token of its own, as Qwen's tokenizer does (`card_4821` → `card_`, `4`, `8`,
    `2`, `1`): a model then copies an identifier digit by digit instead of memorising each one as a whole token."""
    tokenizer = Tokenizer(models.BPE())
    digits = [pre_tokenizers.Digits(individual_digits=True)] if split_digits else []
    if merge_across_words:
        # Identifiers (letters or #_ followed by digits: u15, #W23, card_4821) stay pre-tokens of their own, so a
        # frequent one becomes one token wherever it appears (the user's request, a tool result, a tool call); and no
        # merge crosses a line break, so a prompt ending in the template's "assistant\n" tokenizes as a prefix of
        # the whole conversation (what SFT datums and GRPO's prefix extension rely on).
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(r"\n"), behavior="isolated"),
                pre_tokenizers.Split(Regex(IDENTIFIER.pattern), behavior="isolated"),
                *digits,
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence([*digits, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        chat_template=TINY_CHAT_TEMPLATE,
        model_max_length=4096,
    )


def mark_identifier_tokens(model: torch.nn.Module, tokenizer: PreTrainedTokenizerFast) -> int:
    """Adds one shared random direction to the (tied) embedding of every identifier-like token (letters or #_ then
    digits: u15, #W23, 4821), as pretrained models have a direction that says "this is a number or an id": attention
    can then find identifiers in the context by content and, with tied embeddings, copy one by moving its embedding.
    Returns the number of tokens marked."""
    embedding = model.get_input_embeddings().weight
    generator = torch.Generator().manual_seed(12345)
    direction = torch.randn(embedding.shape[1], generator=generator)
    direction = direction / direction.norm() * embedding[0].norm().item()
    marked = [index for index in range(len(tokenizer)) if IDENTIFIER.fullmatch(tokenizer.decode([index]).strip())]
    with torch.no_grad():
        embedding[marked] += direction
    return len(marked)


def tiny_config(shape: TinyModelShape, tokenizer: PreTrainedTokenizerFast) -> Qwen3Config | Qwen3MoeConfig:
    common = dict(
        vocab_size=len(tokenizer),
        hidden_size=shape.hidden_size,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.attention_heads,
        num_key_value_heads=shape.key_value_heads,
        head_dim=shape.head_dim,
        max_position_embeddings=shape.max_positions,
        tie_word_embeddings=shape.tie_embeddings,
        bos_token_id=None,
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
    )
    if shape.experts:
        return Qwen3MoeConfig(
            **common,
            intermediate_size=shape.intermediate_size,
            moe_intermediate_size=shape.expert_intermediate_size,
            num_experts=shape.experts,
            num_experts_per_tok=shape.experts_per_token,
            decoder_sparse_step=1,
            norm_topk_prob=True,
        )
    return Qwen3Config(**common, intermediate_size=shape.intermediate_size)


def create_tiny_checkpoint(
    directory: Path,
    shape: TinyModelShape = TinyModelShape(),
    texts: list[str] | None = None,
    merge_across_words: bool = False,
    split_digits: bool = False,
) -> Path:
    """Writes a tiny checkpoint (config, safetensors weights, tokenizer, chat template) to `directory`."""
    shape.check()
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(texts if texts is not None else project_corpus(), shape.vocab_size, merge_across_words, split_digits)
    config = tiny_config(shape, tokenizer)
    torch.manual_seed(shape.seed)
    model = (Qwen3MoeForCausalLM if shape.experts else Qwen3ForCausalLM)(config).to(torch.float32)
    # Logits are (RMS-normed hidden state, norm √hidden) · (output row): with the usual 0.02 init they can never
    # exceed about 0.02 · hidden_size, so no token could become likely whatever an adapter learns. Output rows of norm
    # ≈ 2 (untied, so the input embedding does not make "repeat the last token" the favourite) start the policy
    # spread out (logit sd ≈ 2) and let training put almost all mass on one token (logits up to 2·√hidden).
    with torch.no_grad():
        model.get_output_embeddings().weight.normal_(0.0, 2.0 / shape.hidden_size**0.5)
    if shape.tie_embeddings:
        model.tie_weights()
        mark_identifier_tokens(model, tokenizer)
    model.generation_config.eos_token_id = [config.eos_token_id, tokenizer.convert_tokens_to_ids("<|endoftext|>")]
    model.generation_config.pad_token_id = config.pad_token_id
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    (directory / "trace-tiny.json").write_text(json.dumps(asdict(shape), indent=2) + "\n", encoding="utf-8")
    return directory
