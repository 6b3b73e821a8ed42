"""The Celery app; its configuration comes from the CELERY_* settings."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tokenmizer_site.settings")

app = Celery("tokenmizer")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _check_services(**kwargs) -> None:
    from tokenmizer_site.services import check_services

    check_services()


@worker_init.connect
def _yield_to_requests(**kwargs) -> None:
    """Lower the worker's CPU priority (inherited by its pool processes) below the proxy's."""
    from django.conf import settings

    os.nice(settings.TOKENMIZER_WORKER_NICE)
