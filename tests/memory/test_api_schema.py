"""The API fuzzed from its own OpenAPI schema: no generated input makes it fail with a 5xx, and
its answers match the schema. Called in-process through WSGI with a real API key on a seeded
project; path ids point at the seeded rows, so the generated queries and bodies reach real data."""

import json

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from memory import checkpoints, graphs
from memory.transcripts import record_messages
from proxy.keys import create_key
from tests.conftest import CONTESTED_TALK


def _openapi() -> dict:
    """The schema /api/schema/ serves, generated in-process (no request, no database)."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


schema = schemathesis.openapi.from_dict(_openapi())


@pytest.fixture
def wsgi_app():
    """The site's WSGI app, keeping the test's database connection open as Django's test client
    does: the end of each request would otherwise close it mid-transaction."""
    from tokenmizer_site.wsgi import application

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def seeded(session, alice):
    """alice's session with a contested pair and a checkpoint, and her API key for the project."""
    record_messages(session, CONTESTED_TALK)
    graphs.extract_session(session.pk)
    checkpoint = checkpoints.save_checkpoint(session)
    node = session.nodes.filter(type="decision").first()
    _, plaintext = create_key(alice, session.project, "fuzz")
    ids = {
        "projects": session.project_id,
        "sessions": session.pk,
        "checkpoints": checkpoint.pk,
        "decisions": node.pk,
    }
    return {"ids": ids, "headers": {"Authorization": f"Bearer {plaintext}"}}


def _point_at_seeded_rows(case, ids: dict) -> None:
    first = case.operation.path.strip("/").split("/")[1]  # /api/<collection>/{id}/...
    for name in case.path_parameters or {}:
        case.path_parameters[name] = ids[first]


@schema.parametrize()
@settings(
    max_examples=6,  # per operation: about 160 requests in all, a bounded run
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.django_db
def test_no_generated_input_makes_the_api_fail(case, seeded, wsgi_app):
    _point_at_seeded_rows(case, seeded["ids"])
    response = case.call(app=wsgi_app, headers=seeded["headers"])
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )


def test_the_schema_validates_without_a_warning(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    assert "/api/sessions/{id}/resume/:" in target.read_text()
