"""The process's one cache client, for the counters and marks the proxy keeps per request."""

from functools import cache

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache


@cache
def shared():
    """One client for the whole process. ``django.core.cache.cache`` is one per async context,
    that is per request, and with Redis each new one opens a new connection (milliseconds)."""
    return caches.create_connection("default")


def redis_client():
    """The shared cache's Redis connection (redis-py) when the cache is Redis, else None: for
    counters that want one round trip where Django's cache API takes three."""
    backend = shared()
    return backend._cache.get_client(write=True) if isinstance(backend, RedisCache) else None
