"""The websocket that tells an open dashboard page its project's graph changed."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from memory.models import Project
from memory.notify import project_group


@database_sync_to_async
def _is_member(user, project_id: int) -> bool:
    return Project.objects.for_user(user).filter(pk=project_id).exists()


class ProjectConsumer(AsyncJsonWebsocketConsumer):
    """Joins the project's channel group; members only, anyone else is turned away."""

    async def connect(self) -> None:
        self.project_id = int(self.scope["url_route"]["kwargs"]["project_id"])
        user = self.scope.get("user")
        if user is None or not await _is_member(user, self.project_id):
            await self.close(code=4404)
            return
        self.group = project_group(self.project_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def graph_changed(self, event: dict) -> None:
        await self.send_json(
            {"type": "graph.changed", "project": event["project"], "session": event["session"]}
        )
