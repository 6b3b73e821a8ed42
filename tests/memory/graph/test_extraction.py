"""Behaviour of the deterministic extractor: what a user would see land in the session graph."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.graph import extraction
from memory.graph.extraction import extract
from memory.graph.types import Candidate, NodeType, Status, Turn


@pytest.fixture(autouse=True)
def strict_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule that raises must fail the test, not be swallowed by the per-turn safety net."""
    monkeypatch.setattr(extraction, "STRICT", True)


def _turns(*messages: tuple[str, str]) -> list[Turn]:
    return [Turn(position=i, role=role, content=text) for i, (role, text) in enumerate(messages)]


def _labels(cands: list[Candidate], node_type: NodeType, status: Status | None = None) -> list[str]:
    return [
        c.label for c in cands if c.type == node_type and (status is None or c.status == status)
    ]


def _one(text: str, role: str = "user") -> list[Candidate]:
    return extract(_turns(("user", "Let's get going."), (role, text)))


# ----- explicit markers ------------------------------------------------------------------------


def test_decided_marker_is_a_decision_in_force() -> None:
    cands = _one("Decided: Redis for refresh token storage.", role="assistant")
    assert _labels(cands, NodeType.DECISION, Status.COMPLETED) == [
        "Redis for refresh token storage"
    ]


def test_decision_reason_in_parentheses_or_after_a_dash_is_kept() -> None:
    cands = _one("Decided: bcrypt for password hashing (industry standard).", role="assistant")
    cands += _one("Decided: Redis for tokens (not DB — faster revocation).", role="assistant")
    reasons = {c.label: c.reason for c in cands if c.type == NodeType.DECISION}
    assert reasons["bcrypt for password hashing"] == "industry standard"
    assert "faster revocation" in reasons["Redis for tokens"]


def test_completed_and_todo_markers_give_task_statuses() -> None:
    cands = _one("Completed: Slack alert on DAG failures. TODO: backfill 2022 and 2023 data.")
    assert _labels(cands, NodeType.TASK, Status.COMPLETED) == ["Slack alert on DAG failures"]
    assert _labels(cands, NodeType.TASK, Status.PENDING) == ["backfill 2022 and 2023 data"]


def test_working_on_marker_is_in_progress() -> None:
    cands = _one("Working on: rate limiting using slowapi.", role="assistant")
    assert _labels(cands, NodeType.TASK, Status.IN_PROGRESS) == ["rate limiting using slowapi"]


def test_error_marker_is_an_open_error() -> None:
    cands = _one("Error: expired tokens are still accepted.", role="assistant")
    assert _labels(cands, NodeType.ERROR, Status.FAILED) == ["expired tokens are still accepted"]


def test_fix_resolves_the_open_error_it_names() -> None:
    cands = extract(
        _turns(
            ("user", "Error: eval crashed computing the confusion matrix."),
            ("user", "Fixed: confusion matrix crash, passing the labels explicitly."),
        )
    )
    fix = next(c for c in cands if c.type == NodeType.TASK)
    assert fix.status == Status.COMPLETED
    assert fix.fixes == "eval crashed computing the confusion matrix"
    resolved = [c for c in cands if c.type == NodeType.ERROR and c.status == Status.COMPLETED]
    assert [c.label for c in resolved] == ["eval crashed computing the confusion matrix"]


def test_endpoint_list_after_a_marker_gives_one_task_per_route() -> None:
    cands = _one(
        "Implemented: POST /api/auth/register, POST /api/auth/login (returns JWT).",
        role="assistant",
    )
    assert _labels(cands, NodeType.TASK, Status.COMPLETED) == [
        "POST /api/auth/register",
        "POST /api/auth/login",
    ]
    assert "POST /api/auth/login" in _labels(cands, NodeType.ENDPOINT)


def test_comma_after_a_marker_elaborates_instead_of_listing() -> None:
    cands = _one("Completed: slide text, it's in the deck.")
    assert _labels(cands, NodeType.TASK) == ["slide text, it's in the deck"]


# ----- plain and indirect phrasing -------------------------------------------------------------


def test_plain_statement_of_choice_is_a_decision() -> None:
    cands = _one("We're going with graphile-worker for the emails.")
    assert _labels(cands, NodeType.DECISION) == ["going with graphile-worker for the emails"]


def test_indirect_decision_is_extracted() -> None:
    cands = _one(
        "the hand-wrapping was the annoying part anyway, so I went with chi for the router"
    )
    assert _labels(cands, NodeType.DECISION) == ["went with chi for the router"]


def test_switch_from_names_what_the_decision_replaces() -> None:
    cands = _one("Switching from cenkalti/backoff to a hand-rolled retry loop.", role="assistant")
    decisions = [c for c in cands if c.type == NodeType.DECISION]
    assert [c.label for c in decisions] == ["cenkalti/backoff", "a hand-rolled retry loop"]
    assert decisions[-1].replaces == "cenkalti/backoff"


def test_instead_of_fills_replaces() -> None:
    cands = _one("Decided: use PyJWT instead of python-jose.")
    decision = next(c for c in cands if c.type == NodeType.DECISION)
    assert decision.replaces == "python-jose"


def test_a_switch_restated_in_the_same_message_is_one_decision() -> None:
    cands = _one(
        "We're going with JWT instead of PASETO, since the mobile app already ships a JWT "
        "library. So: sign API tokens as JWT with ES256 keys."
    )
    [decision] = [c for c in cands if c.type == NodeType.DECISION]
    assert decision.label == "sign API tokens as JWT with ES256 keys"
    assert decision.replaces == "PASETO"
    assert decision.reason == "the mobile app already ships a JWT library"
    assert "instead of PASETO" in decision.evidence.quote  # what it replaces, in its evidence


def test_a_restatement_is_known_by_the_words_of_the_option_chosen() -> None:
    cands = _one(
        "We're going with an in-process cache instead of the Redis product cache. "
        "So: memoize product lookups in-process for sixty seconds."
    )
    [decision] = [c for c in cands if c.type == NodeType.DECISION]
    assert decision.label == "memoize product lookups in-process for sixty seconds"
    assert decision.replaces == "the Redis product cache"


def test_a_later_decision_on_another_option_is_no_restatement() -> None:
    cands = _one("Going with Stripe instead of Paddle. Decided: Postgres for the order history.")
    assert _labels(cands, NodeType.DECISION) == [
        "Going with Stripe instead of Paddle",
        "Postgres for the order history",
    ]


def test_switched_from_one_option_to_another_is_a_decision_not_work_done() -> None:
    cands = _one(
        "Switched from Celery to Dramatiq because the prefork workers kept leaking memory."
    )
    new = next(c for c in cands if c.type == NodeType.DECISION and c.replaces)
    assert (new.label, new.replaces) == ("Dramatiq", "Celery")
    assert new.reason == "the prefork workers kept leaking memory"
    assert _labels(cands, NodeType.TASK) == []


def test_deferral_is_a_pending_task() -> None:
    cands = _one("marketing would love it but QR codes can wait until after launch")
    assert _labels(cands, NodeType.TASK, Status.PENDING) == ["QR codes can wait until after launch"]


def test_plain_done_statement_is_a_completed_task() -> None:
    cands = _one("The availability endpoint is done.")
    assert _labels(cands, NodeType.TASK, Status.COMPLETED) == ["The availability endpoint is done"]


def test_labels_drop_leading_filler_and_trailing_punctuation() -> None:
    cands = _one("Honestly, we'll use pandera for validation, sure.")
    assert _labels(cands, NodeType.DECISION) == ["use pandera for validation"]


def test_assistant_suggestions_are_not_decisions() -> None:
    cands = _one(
        "I'd keep it private and you could let django-storages sign URLs.", role="assistant"
    )
    assert _labels(cands, NodeType.DECISION) == []


def test_questions_are_not_facts() -> None:
    cands = _one("Should we switch to Postgres for the queue?")
    assert _labels(cands, NodeType.DECISION) == []


def test_later_completion_of_a_planned_task_keeps_its_label() -> None:
    cands = extract(
        _turns(
            ("user", "TODO: alert to Slack on DAG failures."),
            ("user", "Completed: Slack alert on DAG failures."),
        )
    )
    tasks = [(c.label, c.status) for c in cands if c.type == NodeType.TASK]
    assert tasks == [
        ("alert to Slack on DAG failures", Status.PENDING),
        ("alert to Slack on DAG failures", Status.COMPLETED),
    ]


def test_near_duplicate_restatement_gives_one_label() -> None:
    cands = extract(
        _turns(
            ("user", "Decided: BigQuery for the dbt models."),
            ("assistant", "Recap:\n- Decided: BigQuery for dbt models."),
        )
    )
    assert _labels(cands, NodeType.DECISION) == ["BigQuery for the dbt models"]


# ----- errors ----------------------------------------------------------------------------------


def test_traceback_final_line_is_the_error() -> None:
    text = (
        'Build blew up:\n```\nTraceback (most recent call last):\n  File "x.py", line 3\n'
        "ModuleNotFoundError: No module named 'yaml'\n```"
    )
    cands = _one(text)
    assert _labels(cands, NodeType.ERROR) == ["ModuleNotFoundError: No module named 'yaml'"]


def test_fatal_error_line_in_pasted_output_is_the_error() -> None:
    text = (
        "race detector:\n```\nWARNING: DATA RACE\n  main.go:28 +0x84\n"
        "fatal error: concurrent map writes\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == ["fatal error: concurrent map writes"]


def test_output_that_goes_on_to_its_cause_gives_the_cause_as_well() -> None:
    text = (
        "the nightly run died:\n```\nERROR 1 --- [main] o.s.b.c.s.AbstractStep : Encountered an "
        "error executing step reconStep\n  at org.example.Recon.run(Recon.java:41)\n"
        "Caused by: org.postgresql.util.PSQLException: FATAL: terminating connection due to "
        "idle-in-transaction timeout\n```"
    )
    errors = _labels(_one(text), NodeType.ERROR)
    assert len(errors) == 2
    assert "terminating connection due to idle-in-transaction timeout" in errors[1]
    exit_code = (
        "it failed:\n```\nError: build failed: missing module\n"
        "Error: Process completed with exit code 1\n```"
    )
    assert _labels(_one(exit_code), NodeType.ERROR) == ["Error: build failed: missing module"]


def test_exception_from_an_exceptions_module_outranks_a_generic_error_line() -> None:
    text = (
        "the export job died:\n```\n[09:12:44] {worker.py:88} ERROR - Job failed with exception\n"
        "queue.exceptions.LeaseExpired: lease on batch 17 expired after 300 seconds\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "queue.exceptions.LeaseExpired: lease on batch 17 expired after 300 seconds"
    ]


def test_line_saying_only_that_it_failed_gives_way_to_the_line_saying_why() -> None:
    text = (
        "startup is broken:\n```\ncom.acme.db.SchemaException: Check failed: schema has failed checks\n"
        "Column invoices.total holds text where numeric was expected\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "Column invoices.total holds text where numeric was expected"
    ]


def test_failed_step_named_alone_is_kept_with_the_line_saying_why() -> None:
    text = "the build:\n```\n> Task :lib:compileJava FAILED\nNo compatible toolchain found for Java 21\n```"
    assert _labels(_one(text), NodeType.ERROR) == [
        "Task :lib:compileJava FAILED",
        "No compatible toolchain found for Java 21",
    ]
    assert (
        _labels(_one("the build:\n```\n> Task :lib:compileJava FAILED\n```"), NodeType.ERROR) == []
    )


def test_mismatch_reported_in_output_is_an_error() -> None:
    text = (
        "console:\n```\n[app] ready in 300 ms\n[Vue warn]: Hydration attribute mismatch on "
        '<input id="qty">\n  at <CartRow>\n```'
    )
    assert _labels(_one(text), NodeType.ERROR) == ["[Vue warn]: Hydration attribute mismatch on"]


def test_failure_line_ending_in_a_colon_keeps_the_detail_it_introduces() -> None:
    text = (
        "the pipeline stops:\n```\nMissingOutputException in step export, line 9:\n"
        "Step finished, but the report file was never written.\n  reports/summary.csv\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "MissingOutputException in step export, line 9",
        "Step finished, but the report file was never written",
    ]


def test_failed_because_says_why_it_failed() -> None:
    text = "```\n[bundler] Build failed because the entry module src/main.ts does not exist\n```"
    assert _labels(_one(text), NodeType.ERROR) == [
        "Build failed because the entry module src/main.ts does not exist"
    ]


def test_structured_log_line_is_labelled_by_its_message_field() -> None:
    text = (
        'upload log:\n```\nERROR {"level": "error", "msg": "Upload rejected: bucket quota '
        'exceeded for tenant 42", "ts": 1712}\n```'
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "Upload rejected: bucket quota exceeded for tenant 42"
    ]


def test_each_failed_row_of_a_check_report_is_an_error() -> None:
    text = (
        "hardening report:\n```\nPASS  disk_encrypted      Volume vol-1 is encrypted\n"
        "FAIL  ssh_root_login      Root login over SSH is allowed\n"
        "FAIL  password_max_age    Passwords never expire for 3 users\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "Root login over SSH is allowed",
        "Passwords never expire for 3 users",
    ]


def test_bare_namespaced_exception_tag_is_an_error_line() -> None:
    text = (
        "the loader stops:\n```\nCode: 41. Store::Exception: Row too wide for page (over 8 KB). "
        "See the docs.\n  at loader.cpp:88\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "Store::Exception: Row too wide for page (over 8 KB)"
    ]


def test_failed_test_is_reported_with_the_line_saying_why_not_the_package_tally() -> None:
    text = (
        "tests:\n```\n--- FAIL: TestInvoiceRounding (0.02s)\n"
        "    invoice_test.go:41: expected total 10.00, got 9.99\nFAIL\n"
        "FAIL\tgithub.com/acme/billing/invoice\t0.311s\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "FAIL: TestInvoiceRounding (0.02s)",
        "invoice_test.go:41: expected total 10.00, got 9.99",
    ]


def test_message_field_of_a_record_after_a_generic_failure_line_is_the_error() -> None:
    text = (
        "sync log:\n```\n2026-01-04 02:00:09,101 ERROR sync: 12 bulk item(s) failed, first one:\n"
        "{'item': {'status': 409, 'error': {'type': 'conflict', 'reason': 'Document version "
        "conflict for id 7781'}}}\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == ["Document version conflict for id 7781"]


def test_each_diagnostic_of_a_linter_report_is_an_error() -> None:
    text = (
        'lint output:\n```\nschema/v2/orders.proto:12:5:Field name "OrderID" should be '
        'lower_snake_case.\nschema/v2/orders.proto:30:1:Service name "orders" should be '
        "PascalCase.\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        'Field name "OrderID" should be lower_snake_case',
        'Service name "orders" should be PascalCase',
    ]


def test_long_wrapped_error_keeps_its_cause_not_its_context() -> None:
    text = (
        'the drain:\n```\nerror when syncing volume "data-7f3c" to node "worker-b-12" (attempt 3 '
        "of 5, will retry in 10s): Volume is attached to another node and cannot be moved\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "Volume is attached to another node and cannot be moved"
    ]


def test_long_error_line_keeps_what_went_wrong_after_its_but() -> None:
    text = (
        "strict build:\n```\nWARNING -  Page 'setup/install.md' links to the anchor "
        "'#requirements' of its third section, but the anchor '#requirements' is not found in "
        "that page.\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "the anchor '#requirements' is not found in that page"
    ]


def test_http_error_response_in_output_is_the_error() -> None:
    text = "the push:\n```\n403 Forbidden: Token lacks the write:packages scope.\n```"
    assert _labels(_one(text), NodeType.ERROR) == [
        "403 Forbidden: Token lacks the write:packages scope"
    ]


def test_http_status_complaint_is_an_error() -> None:
    assert _labels(_one("Login keeps returning 422"), NodeType.ERROR) == [
        "Login keeps returning 422"
    ]


def test_code_block_lines_are_not_tasks() -> None:
    text = "Here:\n```python\n# TODO: add retries\nDecided = True\nadded = fix_everything()\n```"
    cands = _one(text, role="assistant")
    assert [c for c in cands if c.type in (NodeType.TASK, NodeType.DECISION)] == []


# ----- files, endpoints, environment, goals ---------------------------------------------------


def test_paths_in_every_common_form_are_files() -> None:
    text = (
        "Touched api/models.py, ./run.sh, ~/notes.md, /etc/nginx/nginx.conf, "
        "C:\\Users\\me\\app.py, the Dockerfile and requirements.txt."
    )
    assert _labels(_one(text), NodeType.FILE) == [
        "api/models.py",
        "./run.sh",
        "~/notes.md",
        "/etc/nginx/nginx.conf",
        "C:\\Users\\me\\app.py",
        "Dockerfile",
        "requirements.txt",
    ]


def test_media_recordings_and_packages_named_bare_are_files() -> None:
    text = (
        "The clip IMG_4412.MOV lost its photo, the recording is sub-07_task-oddball.vmrk, "
        "and the build makes game.love and tidepool.dmg."
    )
    assert _labels(_one(text), NodeType.FILE) == [
        "IMG_4412.MOV",
        "sub-07_task-oddball.vmrk",
        "game.love",
        "tidepool.dmg",
    ]


def test_a_directory_written_with_its_slash_is_a_file_entry() -> None:
    text = "Vendored it under lib/, the build goes to dist/ and the recordings to data/raw/sub-XX/."
    assert _labels(_one(text), NodeType.FILE) == ["lib/", "dist/", "data/raw/sub-XX/"]
    text = "Ship it w/ the TCP/IP notes, and/or the 50/50 split."
    assert _labels(_one(text), NodeType.FILE) == []


def test_home_hidden_routed_and_partitioned_paths_are_files_whole() -> None:
    text = (
        "I put the hosts in ~/.ssh/config and the key in ~deploy/.ssh/authorized_keys, moved the "
        "page to src/routes/posts/[id]/+page.svelte and read data/events/dt=2025-03-01/part-0.parquet."
    )
    assert _labels(_one(text), NodeType.FILE) == [
        "~/.ssh/config",
        "~deploy/.ssh/authorized_keys",
        "src/routes/posts/[id]/+page.svelte",
        "data/events/dt=2025-03-01/part-0.parquet",
    ]
    assert _labels(_one("About ~2/3 of the runs pass; ~/ alone is no file."), NodeType.FILE) == []


def test_names_with_spaces_route_groups_and_numbered_files_are_files_whole() -> None:
    text = (
        "I copied ~/Library/Application Support/Code/User/settings.json and "
        "C:\\Program Files (x86)\\Tool\\tool.ini, edited src/app/(auth)/login/page.tsx, "
        'filled in "Q3 Forecast.xlsx" and saved the 2025.xlsx export.'
    )
    assert _labels(_one(text), NodeType.FILE) == [
        "~/Library/Application Support/Code/User/settings.json",
        "C:\\Program Files (x86)\\Tool\\tool.ini",
        "src/app/(auth)/login/page.tsx",
        "Q3 Forecast.xlsx",
        "2025.xlsx",
    ]
    said = 'He wrote "use the new config.yaml" and step 3.md is a list item.'
    assert _labels(_one(said), NodeType.FILE) == ["config.yaml"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "The policy is saved as Hot desking policy v1.docx in the share.",
            "Hot desking policy v1.docx",
        ),
        ("Allergen matrix is done, it's in allergen matrix Dec.xlsx.", "allergen matrix Dec.xlsx"),
        ("I have pasted it into AGM paper - resurfacing.docx.", "AGM paper - resurfacing.docx"),
        ("The route spreadsheet (HLS routes.xlsx) has gaps.", "HLS routes.xlsx"),
        (
            "I've made a spreadsheet, Interrail 2027 plan.xlsx, with the dates.",
            "Interrail 2027 plan.xlsx",
        ),
        ("Please check the attached Budget v2.xlsx today.", "Budget v2.xlsx"),
    ],
)
def test_a_document_named_with_spaces_is_one_file(text: str, name: str) -> None:
    assert _labels(_one(text), NodeType.FILE) == [name]


@pytest.mark.parametrize(
    ("text", "files"),
    [
        ("Open report.pdf and check it.", ["report.pdf"]),  # nothing introduces a longer name
        ("I updated budget.xlsx and report.pdf.", ["budget.xlsx", "report.pdf"]),
        ("Done. Notes v2.docx is attached.", ["v2.docx"]),  # the sentence before is no name
        ("It's in my inbox, I renamed it Tourplan_v4.docx.", ["Tourplan_v4.docx"]),
    ],
)
def test_a_document_name_takes_no_words_that_only_precede_it(text: str, files: list[str]) -> None:
    assert _labels(_one(text), NodeType.FILE) == files


def test_path_in_backticks_is_a_file() -> None:
    assert _labels(_one("See `config/settings/base.py` for it."), NodeType.FILE) == [
        "config/settings/base.py"
    ]


def test_path_followed_by_line_number_is_the_file() -> None:
    assert _labels(_one("It fails at internal/store/clicks.go:28 now"), NodeType.FILE) == [
        "internal/store/clicks.go"
    ]


def test_library_names_and_urls_are_not_files() -> None:
    cands = _one(
        "Decided: date-fns instead of moment.js, docs at https://date-fns.org/v2/index.html"
    )
    assert _labels(cands, NodeType.FILE) == []


def test_route_with_method_is_an_endpoint() -> None:
    assert _labels(
        _one("POST /invoices returns 422 with lowercase currency"), NodeType.ENDPOINT
    ) == ["POST /invoices"]


def test_runtime_version_is_an_environment_fact() -> None:
    assert "Python 3.12" in _labels(
        _one("We're on Python 3.12 with one A10G."), NodeType.ENVIRONMENT
    )


def test_opening_statement_is_the_goal_and_names_the_stack() -> None:
    cands = extract(_turns(("user", "Let's build a FastAPI auth service with JWT and PostgreSQL")))
    assert _labels(cands, NodeType.GOAL) == ["build a FastAPI auth service with JWT and PostgreSQL"]
    assert _labels(cands, NodeType.DECISION) == ["JWT", "PostgreSQL"]


@pytest.mark.parametrize(
    "opening",
    [
        "I'm building a habit tracker in Flutter 3.19, iOS and Android.",  # what the project is in
        "We're moving to usage-based pricing on the Team plan in October.",  # when
    ],
)
def test_an_opening_that_says_what_is_there_chooses_no_stack(opening: str) -> None:
    assert _labels(extract(_turns(("user", opening))), NodeType.DECISION) == []


# ----- robustness ------------------------------------------------------------------------------


def test_evidence_points_at_the_source_turn_and_sentence() -> None:
    cands = extract(
        _turns(("user", "Hi there."), ("user", "Plan set. Decided: AWS DMS for the move."))
    )
    decision = next(c for c in cands if c.type == NodeType.DECISION)
    assert decision.evidence.position == 1
    assert decision.evidence.quote == "Decided: AWS DMS for the move."
    assert decision.cue == "marker_decision"


def test_extraction_is_deterministic() -> None:
    turns = _turns(
        ("user", "Decided: X for Y. TODO: z later."), ("assistant", "Fixed the bug in a.py.")
    )
    assert extract(turns) == extract(turns)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant", "tool"]), st.text()), max_size=6))
def test_extraction_never_raises_on_arbitrary_text(messages: list[tuple[str, str]]) -> None:
    for c in extract(_turns(*messages)):
        assert c.label.strip()


def test_extraction_handles_control_characters_and_unicode() -> None:
    text = "Decided:\x00 Café ☕ for the \x1b[31mlobby\x1b[0m. ```unclosed\nfatal error: boom"
    extract(_turns(("user", text), ("assistant", "\u202e" * 50)))


def test_a_long_session_of_repeated_turns_yields_its_facts_without_duplicates() -> None:
    # Speed and linearity are measured by the scaling benchmark (benchmarks/scaling.py).
    turn = (
        "user",
        "Decided: Redis for the cache because it is fast. Fixed the 500 in api/app.py. "
        "TODO: add retries next week. The login keeps returning 401.",
    )
    candidates = extract(_turns(*[turn] * 2000))
    facts = [(c.type, c.label) for c in candidates]
    labels = {label for _, label in facts}
    assert {"Redis for the cache", "add retries next week", "api/app.py"} <= labels
    assert len(candidates) < 20  # one mention of each fact, not 2,000


def test_pathological_tokens_give_short_labels_or_none() -> None:
    # Inputs that make a careless regex backtrack for minutes; timing lives in the benchmark.
    for text in (
        "a" * 50_000,
        "." * 50_000,
        "a/" * 25_000,
        "x, " * 20_000,
        "C:\\" + "a\\" * 10_000,
    ):
        candidates = extract(_turns(("user", text), ("assistant", text)))
        assert all(len(c.label) <= 300 for c in candidates)


def test_huge_message_is_bounded() -> None:
    extract(_turns(("user", "word " * 500_000 + "a/b.py " * 10_000)))


# ----- conversation structure ------------------------------------------------------------------


def test_accepting_a_proposed_option_is_a_decision() -> None:
    cands = extract(
        _turns(
            ("assistant", "I'd keep the bucket private and let django-storages sign the URLs."),
            ("user", "OK, private bucket with presigned URLs."),
        )
    )
    assert _labels(cands, NodeType.DECISION) == ["private bucket with presigned URLs"]


def test_bare_topic_after_ok_is_not_a_decision() -> None:
    assert _labels(_one("ok so the text-to-sql fine-tune."), NodeType.DECISION) == []


def test_pasted_error_is_the_error_not_the_sentence_introducing_it() -> None:
    text = (
        "Uploading from my phone blows up though:\n```\n"
        "PIL.UnidentifiedImageError: cannot identify image file <_io.BytesIO object at 0x7f>\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "PIL.UnidentifiedImageError: cannot identify image file"
    ]


def test_problem_stated_apart_from_the_paste_is_an_error_of_its_own() -> None:
    text = (
        "Since Friday the nightly export hangs whenever the queue is full. "
        "This is what the worker prints:\n```\nTimeoutError: export took longer than 600 s\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "Since Friday the nightly export hangs whenever the queue is full",
        "TimeoutError: export took longer than 600 s",
    ]


def test_a_bare_error_heading_in_pasted_output_gives_way_to_the_message_under_it() -> None:
    text = (
        "Loading crashes on a fresh install:\n```\nError\n\n"
        "main.lua:48: attempt to index local 'save' (a nil value)\n\nTraceback\n```"
    )
    assert _labels(_one(text), NodeType.ERROR) == [
        "main.lua:48: attempt to index local 'save' (a nil value)"
    ]


def test_fix_naming_a_timeout_setting_and_a_problem_gone_names_no_new_error() -> None:
    cands = _one("Fixed: 2 s timeout with a retry on the upstream call, no more 504s.")
    assert _labels(cands, NodeType.ERROR) == []


def test_quoted_error_message_in_prose_is_the_error() -> None:
    cands = _one("the connector fails and the error is `SSL error: certificate verify failed`")
    assert _labels(cands, NodeType.ERROR) == ["SSL error: certificate verify failed"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "One issue: the booking form rejected the company card twice with "
            "'Transaction declined: AVS mismatch'.",
            "Transaction declined: AVS mismatch",
        ),
        (
            "The QR sign is not working: it opens a page that says "
            '"This form is no longer accepting responses".',
            "This form is no longer accepting responses",
        ),
        (
            "When I block the private room I get 'Error: Table PDR1 is already allocated'.",
            "Error: Table PDR1 is already allocated",
        ),
        (  # a short clause reporting it stays with it: it says who refused
            "The file only has monthly totals, and Gusto rejects it with "
            '"Pay date history must include individual check dates."',
            "Gusto rejects it: Pay date history must include individual check dates",
        ),
    ],
)
def test_message_quoted_after_the_word_reporting_it_is_the_error(text: str, expected: str) -> None:
    assert _labels(_one(text), NodeType.ERROR) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "The sign on the door says 'Open every day from nine'.",  # no failure, no error message
        "I'd call the new page 'Plans and pricing' for now.",  # no word reporting a message
    ],
)
def test_quoted_words_that_report_no_failure_are_no_error(text: str) -> None:
    assert _labels(_one(text), NodeType.ERROR) == []


def test_what_someone_else_says_is_not_a_task() -> None:
    assert _labels(_one("He says the email sending works."), NodeType.TASK) == []


def test_advice_from_the_assistant_is_not_a_fact() -> None:
    text = "You could add a retry. Add a failure callback, so that it only fires on failure."
    cands = _one(text, role="assistant")
    assert [c for c in cands if c.type in (NodeType.TASK, NodeType.ERROR, NodeType.DECISION)] == []


def test_agent_narration_reports_work_and_problems() -> None:
    text = (
        "Found it — the gRPC client had no dial timeout. "
        "Fixed by adding a 5 second timeout in client.go."
    )
    cands = extract(_turns(("user", "The integration test hangs forever"), ("assistant", text)))
    assert "adding a 5 second timeout in client.go" in _labels(
        cands, NodeType.TASK, Status.COMPLETED
    )
    resolved = _labels(cands, NodeType.ERROR, Status.COMPLETED)
    assert "The integration test hangs forever" in resolved


def test_recap_restating_facts_adds_no_new_labels() -> None:
    cands = extract(
        _turns(
            ("user", "Completed: Stripe extraction DAG. Fixed: timezone bug in daily partitions."),
            ("assistant", "Recap:\n- Completed: Stripe extraction DAG, timezone fix."),
        )
    )
    assert [c.label for c in cands if c.evidence.position == 1] == []


def test_reason_clause_after_a_decision_is_not_an_error() -> None:
    text = (
        "We're switching to running tests on every PR; "
        "the nightly-only setup let a broken model through."
    )
    cands = _one(text)
    assert _labels(cands, NodeType.ERROR) == []
    assert _labels(cands, NodeType.DECISION) == ["switching to running tests on every PR"]


def test_status_words_do_not_make_two_tasks_duplicates() -> None:
    cands = extract(
        _turns(
            ("user", "Where are we with the SSO launch?"),
            ("user", "SSO enforcement isn't built yet."),
            ("user", "The help center article for SSO enforcement isn't written yet."),
        )
    )
    assert len(_labels(cands, NodeType.TASK, Status.PENDING)) == 2


def test_markdown_heading_names_the_kind_of_its_list() -> None:
    text = "## Decisions\n- Stripe Billing for subscriptions\n\n## Next steps\n1. Dunning emails"
    cands = _one(text, role="assistant")
    assert _labels(cands, NodeType.DECISION) == ["Stripe Billing for subscriptions"]
    assert _labels(cands, NodeType.TASK, Status.PENDING) == ["Dunning emails"]


def test_confirming_a_suggestion_worked_resolves_the_open_error() -> None:
    cands = extract(
        _turns(
            ("user", "the healthcheck keeps failing on the api container"),
            ("assistant", "The image has no curl. Install it."),
            ("user", "ahh that was it, installed curl and it's green now."),
        )
    )
    assert _labels(cands, NodeType.ERROR, Status.COMPLETED) == [
        "the healthcheck keeps failing on the api container"
    ]
    assert "installed curl" in _labels(cands, NodeType.TASK, Status.COMPLETED)


def test_blocker_is_pending_work_and_a_problem() -> None:
    cands = _one("Blocked on legal for the shared-link policy.")
    assert _labels(cands, NodeType.TASK, Status.PENDING) == [
        "Blocked on legal for the shared-link policy"
    ]
    assert _labels(cands, NodeType.ERROR) == ["Blocked on legal for the shared-link policy"]


def test_pronoun_clause_keeps_its_antecedent() -> None:
    cands = _one("There is a char/4 fallback but it is unreachable.", role="assistant")
    assert _labels(cands, NodeType.ERROR) == ["There is a char/4 fallback but it is unreachable"]


def test_clause_after_a_decision_becomes_its_reason() -> None:
    cands = _one(
        "We're switching to running dbt tests on every PR; "
        "the nightly-only setup let a broken model reach the dashboard."
    )
    decision = next(c for c in cands if c.type == NodeType.DECISION)
    assert decision.label == "switching to running dbt tests on every PR"
    assert decision.reason == "the nightly-only setup let a broken model reach the dashboard"


def test_report_then_fix_keeps_both_names_and_resolves_the_report() -> None:
    cands = extract(
        _turns(
            ("user", "The chart is not updating in real time"),
            ("assistant", "Fixed: WebSocket message not triggering re-render."),
        )
    )
    assert _labels(cands, NodeType.ERROR, Status.COMPLETED) == [
        "The chart is not updating in real time",
        "WebSocket message not triggering re-render",
    ]


@pytest.mark.parametrize(
    ("output", "label"),
    [
        (
            "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
            "ERESOLVE unable to resolve dependency tree",
        ),
        (
            "NAME                 READY   STATUS             RESTARTS   AGE\n"
            "api-7d9f8b6c5-x2k4p  0/1     CrashLoopBackOff   7          12m",
            "api-7d9f8b6c5-x2k4p CrashLoopBackOff",
        ),
        (
            "2024/05/01 10:02:11 [error] 31#31: *5 connect() failed (111: Connection refused) "
            "while connecting to upstream",
            "connect() failed (111: Connection refused) while connecting to upstream",
        ),
        (
            'fatal: [web-07]: UNREACHABLE! => {"changed": false, "msg": "Failed to connect to the '
            'host via ssh", "unreachable": true}',
            "Failed to connect to the host via ssh",
        ),
        (
            ">       assert price(order) == 1000\nE       KeyError: 'currency'\n\n"
            "tests/test_pricing.py:14: KeyError",
            "KeyError: 'currency'",
        ),
        (  # what the test found, not which suite holds it
            "   PASS  Tests\\Unit\\VatTest\n   FAIL  Tests\\Feature\\CheckoutTest\n"
            "  ✕ austrian customer is charged twenty percent\n"
            "  Failed asserting that 119.0 matches expected 120.0.\n"
            "  Tests:  1 failed, 23 passed",
            "Failed asserting that 119.0 matches expected 120.0",
        ),
        (  # a port is no count of failures
            " ✘ Container demo-grafana-1   Error\n"
            "Error response from daemon: Bind for 0.0.0.0:3000 failed: port is already allocated",
            "Error response from daemon: Bind for 0.0.0.0:3000 failed: port is already allocated",
        ),
        (  # the exit code says that it failed; the line before says why
            "/opt/runner/node20/bin/node: /lib/libc.so.6: version `GLIBC_2.28' not found\n"
            "Error: Process completed with exit code 1.",
            "/opt/runner/node20/bin/node: /lib/libc.so.6: version GLIBC_2.28' not found",
        ),
        (  # a logfmt line: its err field says why, its msg only what failed
            'level=warn component=loki.write msg="Push failed" status=429 err="server returned '
            'HTTP status 429 Too Many Requests (429): Ingestion rate limit exceeded"',
            "server returned HTTP status 429 Too Many Requests (429): Ingestion rate limit exceeded",
        ),
        (  # one diagnostic, no colon after its column, before a closing "error during build:"
            "$ npm run build\n[vite-plugin-svelte] src/lib/Timeline.svelte:14:2 `$:` is not "
            "allowed in runes mode\nerror during build:",
            "$: is not allowed in runes mode",
        ),
        (
            "e: file:///Users/mira/sprout/shared/db/PlantDatabase.kt:3:8 Module was compiled "
            "with an incompatible version of Kotlin.",
            "Module was compiled with an incompatible version of Kotlin",
        ),
        (  # a tagged message under a line saying only that the model failed
            "Error: Failed to evaluate model 'staging.stg_orders'\n"
            "  Binder Error: No function matches the given name and argument types",
            "Binder Error: No function matches the given name and argument types",
        ),
    ],
)
def test_failures_in_tool_output_of_every_kind_are_errors(output: str, label: str) -> None:
    text = f"Got this:\n```\n{output}\n```"
    assert _labels(_one(text), NodeType.ERROR) == [label]


@pytest.mark.parametrize(
    ("output", "labels"),
    [
        (  # a tree's branches and a time zone are no part of the message
            "[nitro]   ├─ /product/kenya (1204ms)\n[nitro]   │ └── Error: [500] fetch failed",
            ["Error: [500] fetch failed"],
        ),
        (
            "2024-06-11 10:42:17 UTC [db] ERROR:  canceling statement due to statement timeout",
            ["ERROR: canceling statement due to statement timeout"],
        ),
        (  # the bulleted line after "errors were found" says which
            "** (ArgumentError) errors were found at the given arguments:\n"
            "  * 1st argument: the table identifier does not refer to an existing ETS table",
            [
                "(ArgumentError) errors were found at the given arguments",
                "1st argument: the table identifier does not refer to an existing ETS table",
            ],
        ),
    ],
)
def test_log_decorations_are_read_past(output: str, labels: list[str]) -> None:
    text = f"Got this:\n```\n{output}\n```"
    assert _labels(_one(text), NodeType.ERROR) == labels


def test_fixed_it_resolves_the_error_just_reported() -> None:
    cands = _one(
        "The run failed with KeyError: 'currency'. Fixed it: default the currency to the shop's "
        "currency when the line item has none.",
        role="assistant",
    )
    reported = "The run failed with KeyError: 'currency'"  # the message is not cut off
    assert _labels(cands, NodeType.ERROR, Status.FAILED) == [reported]
    assert _labels(cands, NodeType.ERROR, Status.COMPLETED) == [reported]  # resolved
    [fix] = [c for c in cands if c.type == NodeType.TASK]
    assert fix.label == "default the currency to the shop's currency when the line item has none"
    assert fix.fixes == reported and fix.status == Status.COMPLETED


def test_a_test_runners_tally_is_not_an_error_of_its_own() -> None:
    output = (
        "tests/test_pricing.py ......F   [100%]\n\n"
        "E   AssertionError: assert 1999 == 2000\n\n"
        "========================= 1 failed, 43 passed in 8.15s ========================="
    )
    cands = extract(_turns(("user", "Run the tests."), ("tool", output)))
    assert _labels(cands, NodeType.ERROR) == ["AssertionError: assert 1999 == 2000"]


def test_files_that_share_a_stem_are_distinct_files() -> None:
    text = "They live in Jenkinsfile, Jenkinsfile.deploy and Jenkinsfile.nightly."
    assert _labels(_one(text), NodeType.FILE) == [
        "Jenkinsfile",
        "Jenkinsfile.deploy",
        "Jenkinsfile.nightly",
    ]
