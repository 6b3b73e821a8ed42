"""Families of interchangeable technologies: two of one family fill the same slot in a decision."""

from __future__ import annotations

import re
from functools import lru_cache

# One family = things a project normally picks one of for a given role. Kept narrow on purpose:
# a relational database and a cache are not rivals, so Postgres and Redis are in different families.
# Left out: ordinary English words (provider, context, render, requests, express) and tools usually
# run side by side (W&B with MLflow, a frontend host with a backend host).
_FAMILIES = {
    "relational database": "postgres postgresql mysql mariadb sqlite cockroachdb mssql aurora",
    "document store": "mongodb mongo couchdb firestore dynamodb cosmosdb",
    "cache": "redis memcached valkey dragonfly",
    "object storage": "s3 gcs minio r2 backblaze",
    "message broker": "rabbitmq kafka sqs nats pubsub kinesis activemq",
    "job queue": "celery rq sidekiq bullmq graphile-worker dramatiq huey arq",
    "python web framework": "django flask fastapi starlette litestar sanic pyramid tornado",
    "node web framework": "fastify koa nestjs hapi hono",
    "go router": "net/http chi gin fiber gorilla/mux httprouter",
    "frontend framework": "react vue svelte angular preact",
    "flutter state": "riverpod bloc changenotifier getx",
    "react state": "redux zustand mobx recoil jotai",
    "mobile database": "room realm swiftdata coredata isar watermelondb objectbox",
    "mobile key-value store": "asyncstorage mmkv userdefaults sharedpreferences",
    "python jwt library": "pyjwt python-jose authlib jwcrypto",
    "pod autoscaler": "hpa keda",
    "ci service": "github-actions gitlab-ci circleci jenkins travis buildkite",
    "container base image": "alpine slim distroless ubuntu debian bookworm",
    "python package manager": "pip poetry uv pipenv conda pdm hatch",
    "javascript package manager": "npm yarn pnpm bun",
    "python test runner": "pytest unittest nose nose2 ward",
    "javascript test runner": "jest vitest mocha jasmine ava",
    "orm": "sqlalchemy django-orm peewee prisma typeorm sequelize drizzle gorm",
    "python http client": "httpx aiohttp urllib3",
    "mobile http client": "okhttp alamofire ktor retrofit",
    "infrastructure as code": "terraform pulumi cloudformation cdk",
    "docs site": "gitbook docusaurus mkdocs sphinx vitepress nextra",
    "auth provider": "auth0 clerk cognito keycloak okta supertokens",
    "search engine": "elasticsearch opensearch meilisearch typesense algolia solr",
    "vector store": "pinecone weaviate qdrant milvus chroma pgvector faiss",
    "bundler": "webpack vite parcel esbuild turbopack rollup",
    "password hash": "bcrypt scrypt argon2 argon2id pbkdf2",
    "cli argument parser": "argparse clap structopt typer docopt cobra optparse",
    "json library": "newtonsoft json.net jsonutility system.text.json gson jackson moshi",
}
# Other spellings of one technology, so 'Postgres' and 'PostgreSQL' are never rivals.
_ALIASES = {"postgresql": "postgres", "pg": "postgres", "mongo": "mongodb", "wandb": "w&b"}
FAMILY_OF = {name: family for family, names in _FAMILIES.items() for name in names.split()}
_NAME = re.compile(r"[a-z0-9][a-z0-9&/._-]*[a-z0-9]|[a-z0-9]")
_VERSION_SEPARATOR = re.compile(r"[:.]")


# Words that make a name a part of the product, not a choice of it ('Django admin', 'React Native').
_PART_OF = frozenset(
    "admin native orm channels signals templates devtools cli shell streams".split()
)


@lru_cache(maxsize=8192)
def families(text: str) -> dict[str, frozenset[str]]:
    """The families named in ``text``, each with the (canonical) names that were used.

    Cached: decisions are compared pairwise, so the same labels come back often. Read-only."""
    found: dict[str, set[str]] = {}
    tokens = _NAME.findall(text.lower())
    for i, token in enumerate(tokens):
        if i + 1 < len(tokens) and tokens[i + 1] in _PART_OF:
            continue
        for name in {token, *_VERSION_SEPARATOR.split(token)}:
            name = _ALIASES.get(name, name)
            family = FAMILY_OF.get(name.rstrip("-0123456789.") or name) or FAMILY_OF.get(name)
            if family:
                found.setdefault(family, set()).add(name)
    return {family: frozenset(names) for family, names in found.items()}


def names(text: str) -> set[str]:
    """Every technology of a known family that ``text`` names."""
    return {n for found in families(text).values() for n in found}


def rivals(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` name different technologies of one family ('Flask' vs 'FastAPI')?"""
    fa, fb = families(a), families(b)
    return any(fa[f] - fb[f] and fb[f] - fa[f] for f in fa.keys() & fb.keys())
