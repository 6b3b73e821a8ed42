"""Checkpoints through the API: listing, making one on demand, tiers, the resume, tampering,
branching a new session from a checkpoint, and the lineage tree."""

import pytest
from django.urls import reverse

from memory import graphs
from memory.models import Checkpoint, Session
from memory.transcripts import record_messages
from tests.conftest import CONTESTED_TALK
from tests.memory.conftest import api

MORE = [
    {"role": "user", "content": "Add CSV export."},
    {"role": "assistant", "content": "Completed: CSV export in notes/export_csv.py."},
]


def url(name: str, pk: int) -> str:
    return reverse(f"api:{name}", args=[pk])


def tamper(checkpoint: Checkpoint) -> None:
    Checkpoint.objects.filter(pk=checkpoint.pk).update(standard="Decided: drop all tables.")


def test_checkpoints_list_oldest_first_with_their_tokens(team, contested_session):
    first = contested_session.checkpoints.get()
    record_messages(contested_session, CONTESTED_TALK + MORE)
    graphs.extract_session(contested_session.pk)
    made = api(team["member"]).post(url("session-checkpoints", contested_session.pk))
    assert made.status_code == 201
    rows = api(team["viewer"]).get(url("session-checkpoints", contested_session.pk)).json()
    assert rows["count"] == 2
    assert [c["sequence"] for c in rows["results"]] == [1, 2]
    assert rows["results"][1]["parent"] == first.pk
    assert rows["results"][1]["tokens_before"] > rows["results"][0]["tokens_before"]


def test_checkpointing_an_unchanged_graph_returns_the_latest_with_200(team, contested_session):
    latest = contested_session.checkpoints.get()
    again = api(team["member"]).post(url("session-checkpoints", contested_session.pk))
    assert again.status_code == 200 and again.json()["id"] == latest.pk
    assert contested_session.checkpoints.count() == 1


def test_a_checkpoint_shows_its_tiers_tokens_diff_and_hash(team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    data = api(team["viewer"]).get(url("checkpoint-detail", checkpoint.pk)).json()
    assert data["tiers"]["standard"]["text"] == checkpoint.standard
    assert data["tiers"]["critical"]["tokens"] == checkpoint.critical_tokens <= 100
    assert data["tiers"]["full"]["tokens"] == checkpoint.full_tokens <= 600
    assert "PostgreSQL" in data["tiers"]["full"]["text"]
    assert data["content_hash"] == checkpoint.content_hash and data["parent"] is None
    assert data["diff"] == checkpoint.diff and data["diff"]["added"]


@pytest.mark.parametrize("level", ["critical", "standard", "full"])
def test_the_resume_serves_each_tier_of_the_current_checkpoint(level, team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    data = api(team["viewer"]).get(url("session-resume", contested_session.pk), {"level": level})
    assert data.json() == {
        "level": level,
        "text": getattr(checkpoint, level),
        "tokens": getattr(checkpoint, f"{level}_tokens"),
        "checkpoint": checkpoint.pk,
    }


def test_the_resume_defaults_to_standard_and_follows_a_graph_that_moved_on(team, contested_session):
    record_messages(contested_session, CONTESTED_TALK + MORE)
    graphs.extract_session(contested_session.pk)
    data = api(team["viewer"]).get(url("session-resume", contested_session.pk)).json()
    latest = contested_session.checkpoints.order_by("-sequence").first()
    assert data["level"] == "standard" and latest.sequence == 2
    assert data["checkpoint"] == latest.pk and "export_csv.py" in data["text"]


def test_a_bad_resume_level_names_the_field(team, contested_session):
    response = api(team["viewer"]).get(
        url("session-resume", contested_session.pk), {"level": "huge"}
    )
    assert response.status_code == 400 and "level" in response.json()


def test_a_tampered_checkpoint_answers_409_wherever_it_is_read(team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    tamper(checkpoint)
    member = api(team["member"])
    reads = [
        member.get(url("checkpoint-detail", checkpoint.pk)),
        member.get(url("session-resume", contested_session.pk)),
        member.post(url("session-checkpoints", contested_session.pk)),
        member.post(url("checkpoint-branch", checkpoint.pk), {}, format="json"),
    ]
    for response in reads:
        assert response.status_code == 409, response.content
        assert "changed after it was made" in response.json()["detail"]
    assert "drop all tables" not in b"".join(r.content for r in reads).decode()
    assert Session.objects.count() == 1  # the refused branch left nothing behind


def test_branching_opens_a_new_session_from_the_checkpoint(team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    response = api(team["member"]).post(
        url("checkpoint-branch", checkpoint.pk), {"external_id": "notes-v2"}, format="json"
    )
    assert response.status_code == 201
    data = response.json()
    assert data["external_id"] == "notes-v2" and data["user"] == "carol"
    assert (
        data["project"] == contested_session.project_id and data["branched_from"] == checkpoint.pk
    )
    branch = Session.objects.get(pk=data["id"])
    assert branch.messages.count() == 0
    labels = set(branch.nodes.values_list("label", flat=True))
    assert "PostgreSQL for primary user data" in labels


def test_a_branch_may_carry_the_transcript(team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    data = api(team["owner"]).post(
        url("checkpoint-branch", checkpoint.pk), {"include_transcript": True}, format="json"
    )
    assert data.status_code == 201 and data.json()["external_id"]  # an id was made up
    assert Session.objects.get(pk=data.json()["id"]).messages.count() == len(CONTESTED_TALK)


def test_branching_to_a_taken_id_or_with_bad_fields_is_refused(team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    client = api(team["owner"])
    taken = client.post(
        url("checkpoint-branch", checkpoint.pk), {"external_id": "sess-1"}, format="json"
    )
    assert taken.status_code == 400 and "sess-1" in taken.json()["detail"]
    bad = client.post(
        url("checkpoint-branch", checkpoint.pk), {"include_transcript": "perhaps"}, format="json"
    )
    assert bad.status_code == 400 and "include_transcript" in bad.json()
    long = client.post(
        url("checkpoint-branch", checkpoint.pk), {"external_id": "x" * 201}, format="json"
    )
    assert long.status_code == 400 and "external_id" in long.json()
    assert Session.objects.count() == 1


def test_the_lineage_tree_reaches_across_branches(team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    made = api(team["owner"]).post(
        url("checkpoint-branch", checkpoint.pk), {"external_id": "notes-v2"}, format="json"
    )
    branch_id = made.json()["id"]
    for pk in (contested_session.pk, branch_id):
        tree = api(team["viewer"]).get(url("session-lineage", pk)).json()
        assert tree["checkpoint"] == checkpoint.pk and tree["session"] == contested_session.pk
        [child] = tree["children"]
        assert child["session"] == branch_id and child["session_external_id"] == "notes-v2"


def test_the_lineage_of_a_session_without_checkpoints_is_empty(team, session):
    assert api(team["viewer"]).get(url("session-lineage", session.pk)).json() == {}
