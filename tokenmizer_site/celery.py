"""The Celery app; its configuration comes from the CELERY_* settings."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tokenmizer_site.settings")

app = Celery("tokenmizer")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
