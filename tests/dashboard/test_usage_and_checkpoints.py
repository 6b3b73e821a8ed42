"""Usage with money saved from the price table and a chart; checkpoints with lineage and diffs."""

from decimal import Decimal

from django.urls import reverse

from dashboard.models import ModelPrice
from dashboard.usage import price_for
from memory import checkpoints, decisions
from proxy.models import RequestLog
from tests.dashboard.conftest import client_for, contested_nodes


def test_usage_counts_requests_tokens_errors_and_time_to_first_token(team, contested_session):
    RequestLog.objects.create(project=contested_session.project, session=contested_session,
                              model="gpt-4o-mini", tokens_sent=100, tokens_forwarded=100,
                              upstream_status=502, error="upstream down", ttft_ms=80.0)  # fmt: skip
    html = (
        client_for(team["viewer"])
        .get(reverse("dashboard:project-usage", args=[contested_session.project_id]))
        .content.decode()
    )
    assert '>2</span><span class="stat-label">requests' in html
    assert ">1000<" in html and ">400<" in html and ">600<" in html  # sent, forwarded, saved
    assert "100 ms" in html  # mean of 120 and 80
    assert "stat bad" in html  # one error
    assert '<svg class="chart"' in html and "<rect" in html


def test_money_saved_uses_the_most_specific_price(team, contested_session):
    ModelPrice.objects.create(pattern="gpt-*", input_per_million=10, output_per_million=30)
    ModelPrice.objects.create(pattern="gpt-4o-mini", input_per_million=Decimal("0.15"),
                              output_per_million=Decimal("0.60"))  # fmt: skip
    assert price_for("gpt-4o-mini", list(ModelPrice.objects.all())).pattern == "gpt-4o-mini"
    html = (
        client_for(team["owner"])
        .get(reverse("dashboard:session-usage", args=[contested_session.pk]))
        .content.decode()
    )
    assert "$0.0001" in html  # 600 saved tokens × $0.15 per million


def test_without_a_price_the_page_says_so(team, contested_session):
    html = (
        client_for(team["owner"])
        .get(reverse("dashboard:project-usage", args=[contested_session.project_id]))
        .content.decode()
    )
    assert "no price for these models" in html


def test_a_checkpoint_page_shows_lineage_every_tier_and_the_diff(team, contested_session):
    a, b = contested_nodes(contested_session)
    decisions.resolve_contested(a, b, "keep_both", "complementary", team["owner"])
    second = checkpoints.save_checkpoint(contested_session)
    html = (
        client_for(team["viewer"])
        .get(reverse("dashboard:checkpoint-detail", args=[second.pk]))
        .content.decode()
    )
    assert "#1" in html and "#2" in html and "Against parent #1" in html
    for tier in ("Critical", "Standard", "Full"):
        assert tier in html
    assert "-Contested (unresolved, neither in force):" in html  # the resume diff
    assert 'contested</span> → <span class="status status-completed">completed' in html


def test_the_checkpoint_list_shows_tokens_before_and_after(team, contested_session):
    checkpoint = contested_session.checkpoints.get()
    html = (
        client_for(team["viewer"])
        .get(reverse("dashboard:checkpoint-list", args=[contested_session.pk]))
        .content.decode()
    )
    assert f">{checkpoint.tokens_before}<" in html and f">{checkpoint.tokens_after}<" in html
    assert "root" in html
