"""Secret redaction: every kind of secret is hidden, in prose and in code; ordinary text is not."""

import pytest

from memory.graph.redact import find_secrets, redact

# Built from pieces so the repository itself never holds a string that looks like a live key.
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2
SECRETS = {
    "openai_key": [
        OPENAI,
        "sk-" + "a1B2c3D4e5F6g7H8i9J0" * 2,
        "sk-svcacct-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2",
    ],
    "anthropic_key": ["sk-ant-api03-" + "Q1w2E3r4T5y6U7i8O9p0" * 4 + "-AA"],
    "google_api_key": ["AIza" + "SyD4f5G6h7J8k9L0zXcVbNm1234567890ab"],
    "github_token": [
        "ghp_" + "a1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "github_pat_11AB" + "c" * 20 + "_" + "d1" * 15,
    ],
    "gitlab_token": ["glpat-" + "x1Y2z3A4b5C6d7E8f9G0"],
    "huggingface_token": ["hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"],
    "groq_key": ["gsk_" + "A1b2C3d4E5" * 5],
    "xai_key": ["xai-" + "Q9w8E7r6T5" * 5],
    "aws_access_key_id": ["AKIA" + "IOSFODNN7EXAMPL1", "ASIA" + "Y34FZKBOKMUTVV7A"],
    "slack_token": ["xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl"],
    "slack_webhook": ["https://hooks.slack.com/services/T0000/B0000/" + "XxXxXxXxXxXx1234"],
    "stripe_key": [
        "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    ],
    "twilio_key": ["SK" + "0123456789abcdef" * 2],
    "sendgrid_key": ["SG." + "a" * 22 + "." + "B1" * 21 + "c"],
    "npm_token": ["npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"],
    "jwt": [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    ],
}


@pytest.mark.parametrize(
    ("kind", "secret"), [(kind, s) for kind, values in SECRETS.items() for s in values]
)
def test_each_kind_of_secret_is_redacted_in_prose_and_in_code(kind, secret):
    for text in (
        f"here is my key {secret} please keep it safe",
        f'client = Client(key="{secret}")',
        f"export THING={secret}\n",
    ):
        out = redact(text)
        assert secret not in out
        assert f"[REDACTED:{kind}]" in out


def test_private_key_blocks_are_redacted_whole():
    pem = (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1\nq2w3e4r5t6y7==\n"
        "-----END RSA PRIVATE KEY-----"
    )
    out = redact(f"key:\n{pem}\nthen we deploy")
    assert out == "key:\n[REDACTED:private_key]\nthen we deploy"


def test_a_private_key_cut_off_before_its_end_line_is_still_hidden():
    out = redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQUJD")
    assert "b3BlbnNz" not in out and "QUJD" not in out


def test_an_escaped_private_key_inside_json_is_redacted():
    text = (
        '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADAN\\n'
        '-----END PRIVATE KEY-----\\n"}'
    )
    assert "MIIEvQ" not in redact(text)


def test_aws_secret_assignments_are_redacted():
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
    for text in (f"aws_secret_access_key = {secret}", f'AWS_SECRET_ACCESS_KEY="{secret}"'):
        assert secret not in redact(text)


def test_bearer_tokens_are_redacted_but_variables_are_kept():
    assert (
        redact("Authorization: Bearer abc.DEF-123_xyz")
        == "Authorization: Bearer [REDACTED:bearer_token]"
    )
    assert redact("curl -H 'authorization: token 9f8e7d6c5b4a'") == (
        "curl -H 'authorization: token [REDACTED:bearer_token]'"
    )
    assert "Zm9vYmFy0123456789abc" not in redact("send Bearer Zm9vYmFy0123456789abc to it")
    assert redact("Authorization: Bearer $TOKEN") == "Authorization: Bearer $TOKEN"


def test_passwords_in_urls_keep_the_user_and_host():
    out = redact("DATABASE_URL=postgres://admin:s3cr3t!@db.internal:5432/app")
    assert out == "DATABASE_URL=postgres://admin:[REDACTED:url_password]@db.internal:5432/app"
    assert (
        redact("redis://:p4ss@localhost:6379/0")
        == "redis://:[REDACTED:url_password]@localhost:6379/0"
    )


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("password=hunter2", "password="),
        ("passwd: 'correct horse battery'", "passwd: '"),
        ('{"password": "Tr0ub4dor&3", "user": "ann"}', '{"password": "'),
        ("DATABASES = {'PASSWORD': 'pg-pass-1'}", "'PASSWORD': '"),
        ("SECRET_KEY = 'django-insecure-4x9'", "SECRET_KEY = '"),
        ("api_key=zzz999", "api_key="),
        ("X-Api-Key: abc123def456", "X-Api-Key: "),
        ("token=tok_12345", "token="),
        ('password: str = "hunter22"', 'password: str = "'),
        ("client_secret => 'Qm9v4567'", "client_secret => '"),
    ],
)
def test_credential_assignments_keep_their_key_and_lose_their_value(text, kept):
    out = redact(text)
    assert kept + "[REDACTED:" in out
    value = text[text.index(kept) + len(kept) :].split("'")[0].split('"')[0]
    assert value not in out


@pytest.mark.parametrize(
    "text",
    [
        "The password field is required and the token budget is 300 tokens.",
        "We use sk-learn, scikit-learn and a risk-management-framework-overview.",
        "max_tokens=300 and token_budget: 300 and n_tokens = 42",
        "password = request.POST['password']",
        "password=form.cleaned_data['password'] and token=API_TOKEN",
        "secret_key=settings.SECRET_KEY; refresh_token=get_refresh_token()",
        "Remember the password: never share it. The secret: it works.",
        "if password == other: return",
        "Use a Bearer token in the Authorization header.",
        "def check_password(password: str) -> bool:",
        "password: ${DB_PASSWORD} and token: null and password=None",
        "visit http://localhost:8000/api/v1 or git@github.com:org/repo.git",
        "The API key lives in .env; rotate the api key task is pending.",
        "SHA 3f786850e387550fdab836ed7e6dc881de23001b, uuid 123e4567-e89b-12d3-a456-426614174000",
        "Switched from PostgreSQL to SQLite because hosting cost too much.",
        "Файл настроек и пароль пользователя; 数据库迁移完成",
    ],
)
def test_ordinary_prose_and_code_are_left_alone(text):
    assert find_secrets(text) == []
    assert redact(text) == text


def test_redaction_is_idempotent():
    text = f"key {OPENAI} and password=hunter2 at postgres://u:pw1@h/db"
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


def test_find_secrets_reports_kinds_and_spans_in_order():
    text = f"a {OPENAI} b password=hunter2"
    found = find_secrets(text)
    assert [kind for kind, _ in found] == ["openai_key", "password"]
    start, end = found[0][1]
    assert text[start:end] == OPENAI


def test_a_key_inside_an_assignment_is_named_for_its_provider():
    assert redact(f"OPENAI_API_KEY={OPENAI}") == "OPENAI_API_KEY=[REDACTED:openai_key]"


def test_a_secret_of_any_length_is_hidden_whole():
    long_value = "Zx9" * 400
    assert redact(f"password={long_value} done") == "password=[REDACTED:password] done"
    assert redact(f'token: "{long_value}"') == 'token: "[REDACTED:token]"'


def test_keys_glued_to_a_prefix_are_still_recognised():
    assert redact("PGPASSWORD=s3cret psql") == "PGPASSWORD=[REDACTED:password] psql"
    assert redact("数据库password=hunter2") == "数据库password=[REDACTED:password]"


def test_a_tokenmizer_api_key_is_redacted():
    key = "tmz_" + "Ab3dEf6hIj" * 4
    assert key not in redact(f"export OPENAI_API_KEY={key}")
    assert "[REDACTED:tokenmizer_key]" in redact(f"my key is {key} ok")


def test_a_value_with_digits_before_a_bracket_is_still_a_secret():
    # Found by the resume property test: "password=hunter2[" read as a call of `hunter2`.
    assert redact("[ password=hunter2[ password=hunter2[") == (
        "[ password=[REDACTED:password][ password=[REDACTED:password]["
    )
    assert redact("token=creds[0] and password=get_password()") == (
        "token=creds[0] and password=get_password()"
    )
