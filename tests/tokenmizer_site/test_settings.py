"""Settings from the environment: the embedded default, DATABASE_URL forms, refusing unsafe set-ups."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import django; django.setup(); from django.conf import settings as s; "
    "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'], "
    "s.CELERY_TASK_ALWAYS_EAGER, s.CHANNEL_LAYERS['default']['BACKEND'].rsplit('.', 1)[1])"
)


def run_settings(**env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}
    }
    clean.update(env, DJANGO_SETTINGS_MODULE="tokenmizer_site.settings")
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True
    )


def test_with_nothing_set_it_runs_embedded():
    out = run_settings().stdout.split()
    assert out[0] == "django.db.backends.sqlite3"
    assert out[2:] == ["True", "InMemoryChannelLayer"]


def test_a_sqlite_url_chooses_that_file(tmp_path):
    out = run_settings(DATABASE_URL=f"sqlite:///{tmp_path}/x.db").stdout.split()
    assert out[:2] == ["django.db.backends.sqlite3", f"{tmp_path}/x.db"]


def test_a_postgres_url_and_redis_switch_on_the_production_profile():
    result = run_settings(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/tokenmizer",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert result.stdout.split() == [
        "django.db.backends.postgresql",
        "tokenmizer",
        "False",
        "RedisChannelLayer",
    ]


def test_debug_off_with_the_development_secret_key_refuses_to_start():
    result = run_settings(DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_a_malformed_boolean_is_named_in_the_error():
    result = run_settings(DEBUG="maybe")
    assert "DEBUG must be a boolean" in result.stderr
