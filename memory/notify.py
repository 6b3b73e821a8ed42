"""Telling open dashboard pages that a project's graph changed, through its channel group."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)


def project_group(project_id: int) -> str:
    return f"project-{project_id}"


def graph_changed(session) -> None:
    """After the transaction commits, send ``graph.changed`` to the session's project group."""
    message = {"type": "graph.changed", "project": session.project_id, "session": session.pk}

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(project_group(session.project_id), message)
        except Exception:  # a page missing one live update must never fail the job
            log.warning("could not notify project %s of a graph change", session.project_id)

    transaction.on_commit(send)
