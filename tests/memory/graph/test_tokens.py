"""Token counting with the real BPE files: known counts, model mapping, caching, hash checks."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.graph import tokens


@pytest.mark.parametrize(
    ("text", "model", "expected"),
    [
        ("hello world", "gpt-4", 2),
        ("hello world", "gpt-4o", 2),
        ("tiktoken is great!", "gpt-4", 6),
        ("tiktoken is great!", "gpt-4o", 6),
        ("", None, 0),
    ],
)
def test_known_strings_count_as_tiktoken_says(text, model, expected):
    assert tokens.count(text, model) == expected


def test_the_two_encodings_differ_where_their_vocabularies_do():
    text = "Добрый день, мы переезжаем с PostgreSQL на SQLite."
    assert tokens.count(text, "gpt-4o") < tokens.count(text, "gpt-4")


def test_counts_round_trip_through_the_encoding():
    enc = tokens.encoding_for("gpt-4o")
    text = "naïve café — 数据库 🙂"
    assert enc.decode(enc.encode_ordinary(text)) == text


def test_special_token_text_counts_as_plain_text_instead_of_raising():
    assert tokens.count("<|endoftext|>") > 1


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini-2024-07-18", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5.1-codex", "o200k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
        ("claude-sonnet-4", "cl100k_base"),
        ("", "cl100k_base"),
        (None, "cl100k_base"),
    ],
)
def test_model_names_choose_their_encoding(model, encoding):
    assert tokens.encoding_name_for(model) == encoding
    assert tokens.encoding_for(model).name == encoding


def test_encodings_are_built_once():
    assert tokens.get_encoding("cl100k_base") is tokens.get_encoding("cl100k_base")


def test_unknown_encoding_name_is_refused():
    with pytest.raises(KeyError):
        tokens.get_encoding("p50k_base")


def test_a_tampered_bpe_file_is_refused(monkeypatch):
    real = tokens._read_packaged
    monkeypatch.setattr(tokens, "_read_packaged", lambda name: real(name) + b"AAAA 999999\n")
    with pytest.raises(tokens.TokenizerDataError, match="sha256"):
        tokens._load_encoding("cl100k_base")


def test_a_missing_bpe_file_is_refused(monkeypatch):
    def missing(name):
        raise tokens.TokenizerDataError(f"BPE file {name}.gz is missing")

    monkeypatch.setattr(tokens, "_read_packaged", missing)
    with pytest.raises(tokens.TokenizerDataError, match="missing"):
        tokens._load_encoding("o200k_base")


def test_the_packaged_files_match_tiktokens_hashes():
    for name in tokens.ENCODING_NAMES:
        assert tokens._load_encoding(name).n_vocab > 100_000


def test_a_message_costs_its_content_plus_framing():
    message = {"role": "user", "content": "hello world"}
    assert tokens.count_message(message) == 3 + 1 + 2  # framing, "user", content
    assert tokens.count_messages([message, message]) == 2 * 6 + 3


def test_list_content_counts_text_parts_and_images():
    text_only = {"role": "user", "content": [{"type": "text", "text": "hello world"}]}
    with_image = {
        "role": "user",
        "content": [
            {"type": "text", "text": "hello world"},
            {
                "type": "image_url",
                "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"},
            },
        ],
    }
    assert tokens.count_message(text_only) == tokens.count_message(
        {"role": "user", "content": "hello world"}
    )
    assert (
        tokens.count_message(with_image)
        == tokens.count_message(text_only) + tokens.IMAGE_TOKENS_LOW
    )


def test_tool_calls_and_tool_results_are_counted():
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "src/app.py"}'},
            }
        ],
    }
    result = {"role": "tool", "tool_call_id": "call_1", "content": "print('hi')"}
    bare = tokens.count_message({"role": "assistant", "content": None})
    assert tokens.count_message(call) > bare + tokens.count('{"path": "src/app.py"}')
    assert tokens.count_message(result) > tokens.count("print('hi')") + 3


def test_message_counts_are_cached_by_content(monkeypatch):
    message = {"role": "user", "content": "a message counted once, then from the cache"}
    first = tokens.count_message(message, "gpt-4o")

    def boom(*args):
        raise AssertionError("counted again")

    monkeypatch.setattr(tokens, "_message_tokens", boom)
    assert tokens.count_message(dict(message), "gpt-4o") == first
    with pytest.raises(AssertionError):
        tokens.count_message({**message, "content": "something else"}, "gpt-4o")


def test_content_hash_is_stable_and_ignores_unrelated_fields():
    a = {"role": "user", "content": "hi", "name": None}
    b = {"content": "hi", "role": "user", "extra": 1}
    assert tokens.content_hash(a) == tokens.content_hash(b)
    assert tokens.content_hash(a) != tokens.content_hash({"role": "assistant", "content": "hi"})
    assert len(tokens.content_hash(a)) == 64


def test_a_conversations_next_request_counts_as_if_counted_afresh():
    first = [
        {"role": "system", "content": "You review pull requests."},
        {"role": "user", "content": "Look at src/app.py please."},
    ]
    reply = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"p": "src/app.py"}'}}
    ]}  # fmt: skip
    result = {"role": "tool", "tool_call_id": "c1", "content": "def main():\n    return 1\n" * 40}
    grown = [*first, reply, result]
    edited = [first[0], {"role": "user", "content": "Look at src/cli.py instead."}, reply, result]
    for request in (first, grown, edited, grown[:2], [], grown):
        for model in ("gpt-4o", "gpt-4"):  # two encodings: each keeps its own counts
            assert tokens.count_messages(request, model, "conv-1") == tokens.count_messages(
                request, model
            )


def test_a_message_changed_after_counting_does_not_lend_its_old_count():
    messages = [{"role": "user", "content": "short"}]
    tokens.count_messages(messages, "gpt-4o", "conv-2")
    messages[0]["content"] = "a much longer message than the one counted before, by far"
    assert tokens.count_messages(messages, "gpt-4o", "conv-2") == tokens.count_messages(
        messages, "gpt-4o"
    )


def test_the_shared_start_of_a_conversation_is_not_counted_again(monkeypatch):
    history = [{"role": "user", "content": f"message {i}"} for i in range(5)]
    before = tokens.count_messages(history, "gpt-4o", "conv-3")
    hashed = []
    real = tokens._count_key
    monkeypatch.setattr(tokens, "_count_key", lambda m: hashed.append(m) or real(m))
    after = tokens.count_messages(
        [*history, {"role": "user", "content": "new"}], "gpt-4o", "conv-3"
    )
    assert hashed == [{"role": "user", "content": "new"}]
    assert after == before + tokens.count_message({"role": "user", "content": "new"}, "gpt-4o")


SHAPES = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"]), "content": st.text()},
    optional={
        "name": st.text(max_size=20),
        "tool_call_id": st.text(max_size=30),
        "tool_calls": st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.text(max_size=10),
                    "type": st.just("function"),
                    "function": st.fixed_dictionaries(
                        {"name": st.text(max_size=20), "arguments": st.text()}
                    ),
                }
            ),
            max_size=3,
        ),
    },
)


@given(SHAPES)
def test_a_messages_size_bounds_its_tokens(message):
    assert tokens.most_tokens(message) >= tokens.count_message(message, "gpt-4o")
    assert tokens.most_tokens(message) >= tokens.count_message(message, "gpt-4")


def test_shapes_the_size_does_not_bound_are_counted_at_once():
    image = {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}
    message = {"role": "user", "content": [{"type": "text", "text": "look"}, image]}
    assert tokens.most_tokens(message) is None
    tally = tokens.tally([message], "gpt-4o")
    assert tally.counted() == tally.exact() == tokens.count_messages([message], "gpt-4o")


def test_a_tally_tokenizes_only_what_its_question_needs(monkeypatch):
    text = "We moved the orders service from Flask to FastAPI last week. " * 40
    messages = [{"role": "user", "content": text + "(tally test)"}]
    encoded = []
    encoding = tokens.encoding_for("gpt-4o")
    real = encoding.encode_ordinary
    monkeypatch.setattr(encoding, "encode_ordinary", lambda t: encoded.append(t) or real(t))
    tally = tokens.tally(messages, "gpt-4o", "conv-tally")
    assert not tally.over(len(text) * 2)  # its size is under the limit: nothing tokenized
    assert encoded == []
    assert tally.over(100)  # its size is over: counted, and it is over
    assert tally.exact() == tokens.count_messages(messages, "gpt-4o") > 100
    counted = len(encoded)
    assert tally.exact() == tally.counted() == tally.at_most()  # counted once, then known
    assert len(encoded) == counted


def test_a_tally_of_a_resent_conversation_knows_what_the_last_one_counted():
    history = [{"role": "user", "content": f"tally message {i} " * 30} for i in range(3)]
    first = tokens.tally(history, "gpt-4o", "conv-resent")
    assert first.counted() == tokens.REPLY_PRIMING  # nothing counted yet
    exact = first.exact()
    again = tokens.tally([*history, {"role": "user", "content": "ok"}], "gpt-4o", "conv-resent")
    assert again.counted() == exact  # the shared start took the counts made for the first
    ok = tokens.count_message({"role": "user", "content": "ok"}, "gpt-4o")
    assert again.plus(10).exact() == exact + ok + 10
