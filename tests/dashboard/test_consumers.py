"""The live-update websocket: members hear about graph changes of their project, nobody else connects."""

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from memory.notify import project_group
from tests.dashboard.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def headers_for(user) -> list[tuple[bytes, bytes]]:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if user is not None:
        cookie = client_for(user).cookies["sessionid"].value
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return headers


async def _listen(headers, project_id: int, send_change: bool):
    from tokenmizer_site.asgi import application

    communicator = WebsocketCommunicator(
        application, f"/ws/projects/{project_id}/", headers=headers
    )
    connected, code = await communicator.connect()
    message = None
    if connected and send_change:
        await get_channel_layer().group_send(
            project_group(project_id),
            {"type": "graph.changed", "project": project_id, "session": 7},
        )
        message = await communicator.receive_json_from(timeout=2)
    await communicator.disconnect()
    return connected, code, message


def listen(user, project_id: int, send_change: bool = False):
    return async_to_sync(_listen)(headers_for(user), project_id, send_change)


def test_a_member_hears_when_the_projects_graph_changes(team, project):
    connected, _, message = listen(team["viewer"], project.pk, send_change=True)
    assert connected
    assert message == {"type": "graph.changed", "project": project.pk, "session": 7}


@pytest.mark.parametrize("role", ["stranger", "anonymous"])
def test_strangers_and_anonymous_visitors_are_turned_away(team, project, role):
    connected, code, _ = listen(team[role], project.pk)
    assert not connected and code == 4404


def test_a_page_of_another_site_cannot_open_the_socket(team, project):
    headers = [(b"origin", b"http://evil.example"), *headers_for(team["owner"])[1:]]

    async def attempt():
        from tokenmizer_site.asgi import application

        communicator = WebsocketCommunicator(application, f"/ws/projects/{project.pk}/", headers)
        connected, _ = await communicator.connect()
        return connected

    assert not async_to_sync(attempt)()
