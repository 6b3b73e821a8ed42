"""Settings, read from the environment; with nothing set it runs embedded (SQLite, eager Celery)."""

import os
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
DEV_SECRET_KEY = "django-insecure-tokenmizer-development-key"


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off", ""}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured(
        "DEBUG is off but SECRET_KEY is the development key: set SECRET_KEY to a long random value."
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",  # runserver serves the ASGI application (proxy included)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI assets, served as our own static files
    "django_htmx",
    "memory",
    "proxy",
    "dashboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files under uvicorn in production
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "tokenmizer_site.urls"
ASGI_APPLICATION = "tokenmizer_site.asgi.application"
WSGI_APPLICATION = "tokenmizer_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Embedded default: a SQLite file beside the code. Production: DATABASE_URL (postgres://…,
# sqlite:///path, any form dj-database-url reads).
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers and a writer overlap; IMMEDIATE transactions take the write lock up front,
    # so concurrent requests wait for it (up to the timeout) instead of failing on upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # Tests use a file too: an in-memory shared-cache database locks whole tables across threads.
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"tokenmizer-test-{os.getpid()}.sqlite3")
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis switches on the broker, the channel layer and the shared cache (rate limits live there).
REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
    # How long an unacknowledged job waits before another worker gets it (e.g. after a crash).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("TOKENMIZER_VISIBILITY_TIMEOUT_S", 300)
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = None
    CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # a killed worker's job goes back to the queue
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_PUBLISH_RETRY = False  # with the broker down, fail fast and extract inline instead
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE = {
    "extract-pending": {"task": "memory.tasks.extract_pending", "schedule": 60.0},
    "decay-importance": {"task": "memory.tasks.decay_importance", "schedule": 3600.0},
    "prune-graphs": {"task": "memory.tasks.prune_graphs", "schedule": 3600.0},
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = env_int("TOKENMIZER_TASK_TIME_LIMIT", 120)
# Embedded, extraction runs in the serving process: a session's job starts once the process has
# served no request for this long, so that the exchanges of a burst (an agent's quick tool rounds)
# share one job and no job takes the interpreter from a request; short enough that the job is over
# within the pause a person or a model's reply leaves (200 ms pushed it into the next request of a
# conversation paced at 100 ms). Under unbroken load it starts at the latest MAX_DELAY after its
# exchange. A worker (production) coalesces by itself: exchanges committed while a session's job
# waits in the queue share that job.
TOKENMIZER_EXTRACTION_DELAY_MS = env_int("TOKENMIZER_EXTRACTION_DELAY_MS", 50)
TOKENMIZER_EXTRACTION_MAX_DELAY_MS = env_int("TOKENMIZER_EXTRACTION_MAX_DELAY_MS", 1000)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 10
# A worker lowers its own CPU priority by this much (nice), so that on a machine it shares with
# the ASGI processes a request never waits behind an extraction job; jobs still run at full speed
# whenever the proxy is idle (0: leave the priority as started).
TOKENMIZER_WORKER_NICE = env_int("TOKENMIZER_WORKER_NICE", 10)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "dashboard:login"
LOGIN_REDIRECT_URL = "dashboard:project-list"
LOGOUT_REDIRECT_URL = "dashboard:login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# The REST API under /api/: 50 rows a page, OpenAPI 3 schema. Its views add API-key (Bearer)
# authentication themselves: naming memory.api here would import it while DRF itself loads.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "TokenMizer API",
    "DESCRIPTION": "Projects, sessions, their typed memory graphs, checkpoints and decisions.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",  # served from our static files, never a CDN
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "NodeTypeEnum": "memory.serializers.NODE_TYPES",
        "EdgeTypeEnum": "memory.serializers.EDGE_TYPES",
        "NodeStatusEnum": "memory.serializers.STATUSES",
    },
}

# The memory itself.
TOKENMIZER_DEFAULT_MECW = env_int("TOKENMIZER_DEFAULT_MECW", 16_000)
TOKENMIZER_CHECKPOINT_RATIO = float(env_str("TOKENMIZER_CHECKPOINT_RATIO", "0.85"))
TOKENMIZER_GRAPH_NODE_CAP = env_int("TOKENMIZER_GRAPH_NODE_CAP", 2_000)
TOKENMIZER_ACTIVE_DAYS = env_int(
    "TOKENMIZER_ACTIVE_DAYS", 7
)  # decay and pruning look this far back

LOG_FORMAT = env_str("TOKENMIZER_LOG_FORMAT", "plain" if DEBUG else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "tokenmizer_site.logs.RequestContext"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {"()": "tokenmizer_site.logs.JsonLines"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["context"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}

# The proxy.
TOKENMIZER_UPSTREAM_URL = env_str("TOKENMIZER_UPSTREAM_URL", "https://api.openai.com/v1")
TOKENMIZER_UPSTREAM_KEY = env_str("TOKENMIZER_UPSTREAM_KEY", "")
TOKENMIZER_MAX_BODY_BYTES = env_int("TOKENMIZER_MAX_BODY_BYTES", 8 * 1024 * 1024)
TOKENMIZER_CONNECT_TIMEOUT_S = float(env_str("TOKENMIZER_CONNECT_TIMEOUT_S", "5"))
TOKENMIZER_READ_TIMEOUT_S = float(env_str("TOKENMIZER_READ_TIMEOUT_S", "120"))
# How long a process reuses a request's admission (key, project, upstreams, session) for the next
# requests with the same key and session id. A key revoked or a project changed elsewhere takes
# effect within this; 0 turns the reuse off.
TOKENMIZER_ADMISSION_TTL_S = float(env_str("TOKENMIZER_ADMISSION_TTL_S", "1"))
