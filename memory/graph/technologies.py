"""Families of interchangeable technologies: two of one family fill the same slot in a decision."""

from __future__ import annotations

import re

# Ordinary English words (provider, context, render, requests, express) are left out on purpose.
# One family = things a project normally picks one of for a given role. Kept narrow on purpose:
# a relational database and a cache are not rivals, so Postgres and Redis are in different families.
_FAMILIES = {
    "relational database": "postgres postgresql mysql mariadb sqlite cockroachdb mssql oracle aurora",
    "document store": "mongodb mongo couchdb firestore dynamodb cosmosdb",
    "cache": "redis memcached valkey dragonfly",
    "object storage": "s3 gcs minio r2 backblaze",
    "message broker": "rabbitmq kafka sqs nats pubsub kinesis activemq",
    "job queue": "celery rq sidekiq bullmq graphile-worker dramatiq huey arq",
    "python web framework": "django flask fastapi starlette litestar sanic pyramid tornado",
    "node web framework": "fastify koa nestjs hapi hono",
    "go router": "net/http chi gin fiber gorilla/mux httprouter",
    "frontend framework": "react vue svelte angular preact",
    "flutter state": "riverpod bloc changenotifier getx mobx redux",
    "react state": "redux zustand mobx recoil jotai",
    "mobile local store": "room realm asyncstorage mmkv swiftdata coredata hive isar watermelondb",
    "python jwt library": "pyjwt python-jose authlib jwcrypto",
    "autoscaler": "hpa keda vpa karpenter cluster-autoscaler",
    "ci service": "github-actions gitlab-ci circleci jenkins travis buildkite",
    "container base image": "alpine slim distroless ubuntu debian bookworm",
    "package manager": "pip poetry uv pipenv conda npm yarn pnpm bun",
    "test runner": "pytest unittest nose jest vitest mocha",
    "orm": "sqlalchemy django-orm peewee prisma typeorm sequelize drizzle gorm",
    "experiment tracker": "w&b wandb mlflow neptune comet tensorboard",
    "http client": "httpx aiohttp urllib3 axios okhttp retrofit",
    "infrastructure as code": "terraform pulumi cloudformation cdk",
    "hosting": "herokufly.io railway vercel netlify",
}
FAMILY_OF = {name: family for family, names in _FAMILIES.items() for name in names.split()}
_NAME = re.compile(r"[a-z0-9][a-z0-9&/._-]*[a-z0-9]|[a-z0-9]")


def families(text: str) -> dict[str, set[str]]:
    """The families named in ``text``, each with the names that were used."""
    found: dict[str, set[str]] = {}
    for token in _NAME.findall(text.lower()):
        for name in {token, *re.split(r"[:.]", token)}:
            family = FAMILY_OF.get(name.rstrip("-0123456789.") or name) or FAMILY_OF.get(name)
            if family:
                found.setdefault(family, set()).add(name)
    return found


def rivals(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` name different technologies of one family ('Flask' vs 'FastAPI')?"""
    fa, fb = families(a), families(b)
    return any(fa[f] != fb[f] and fa[f] - fb[f] and fb[f] - fa[f] for f in fa.keys() & fb.keys())
