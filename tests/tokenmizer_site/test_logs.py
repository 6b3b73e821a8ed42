"""Log lines carry the request id and never a secret, in plain and JSON form."""

import json
import logging

from tokenmizer_site.logs import JsonLines, RequestContext, request_id

KEY = "sk-proj-" + "Qw3rTy7UiOp1AsDfGh5JkLz9XcVbNm2Lk" * 2


def format_record(formatter: logging.Formatter, message: str, *args) -> str:
    record = logging.LogRecord(
        "tokenmizer.proxy", logging.WARNING, __file__, 1, message, args, None
    )
    assert RequestContext().filter(record)
    return formatter.format(record)


def test_a_secret_in_a_log_line_is_redacted():
    line = format_record(logging.Formatter("%(message)s"), "upstream refused key %s", KEY)
    assert KEY not in line and "upstream refused key" in line


def test_json_lines_carry_the_request_id():
    token = request_id.set("abc123")
    try:
        line = json.loads(format_record(JsonLines(), "hello %s", "world"))
    finally:
        request_id.reset(token)
    assert line["request_id"] == "abc123" and line["message"] == "hello world"
    assert line["level"] == "WARNING" and line["logger"] == "tokenmizer.proxy"


def test_a_tokenmizer_key_in_a_traceback_is_redacted():
    tmz = "tmz_" + "a1B2c3D4e5" * 4
    try:
        raise ValueError(f"bad key {tmz}")
    except ValueError:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "failed", (), __import__("sys").exc_info()
        )
    RequestContext().filter(record)
    assert tmz not in JsonLines().format(record)
