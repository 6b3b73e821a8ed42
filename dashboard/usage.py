"""Usage of a project or session: requests, tokens sent and forwarded, money saved, over time."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import (
    Avg,
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Greatest, TruncDay, TruncHour

from dashboard.models import ModelPrice
from memory.models import Checkpoint, Project, Session
from proxy.models import RequestLog

MILLION = Decimal(1_000_000)


@dataclass
class Usage:
    requests: int = 0
    tokens_sent: int = 0
    tokens_forwarded: int = 0
    completion_tokens: int = 0
    errors: int = 0
    ttft_ms: float | None = None
    money_saved: Decimal = Decimal(0)
    priced: bool = False  # whether any request's model had a price
    series: list[dict] = field(default_factory=list)
    bucket: str = "day"

    @property
    def tokens_saved(self) -> int:
        return max(self.tokens_sent - self.tokens_forwarded, 0)

    @property
    def saved_share(self) -> float:
        return self.tokens_saved / self.tokens_sent if self.tokens_sent else 0.0


def price_for(model: str, prices: list[ModelPrice]) -> ModelPrice | None:
    matching = [p for p in prices if p.matches(model)]
    return max(matching, key=lambda p: p.specificity) if matching else None


def _sum(name: str):
    return Coalesce(Sum(name), 0)


def _money_saved(logs: QuerySet) -> tuple[Decimal, bool]:
    prices, total, priced = list(ModelPrice.objects.all()), Decimal(0), False
    per_model = logs.values("model").annotate(
        sent=_sum("tokens_sent"), fwd=_sum("tokens_forwarded")
    )
    for row in per_model:
        price = price_for(row["model"] or "", prices)
        if price is not None:
            priced = True
            total += Decimal(max(row["sent"] - row["fwd"], 0)) * price.input_per_million / MILLION
    return total, priced


def _series(logs: QuerySet) -> tuple[list[dict], str]:
    first = logs.order_by("created_at").values_list("created_at", flat=True).first()
    last = logs.order_by("-created_at").values_list("created_at", flat=True).first()
    if first is None:
        return [], "day"
    bucket = "hour" if (last - first).total_seconds() < 2 * 86400 else "day"
    trunc = TruncHour if bucket == "hour" else TruncDay
    rows = (
        logs.annotate(t=trunc("created_at")).values("t")
        .annotate(requests=Count("pk"), sent=_sum("tokens_sent"), forwarded=_sum("tokens_forwarded"))
        .order_by("t")
    )  # fmt: skip
    return [dict(r) for r in rows], bucket


def usage_of(logs: QuerySet) -> Usage:
    """The usage summary of these request logs."""
    totals = logs.aggregate(
        requests=Count("pk"),
        tokens_sent=_sum("tokens_sent"),
        tokens_forwarded=_sum("tokens_forwarded"),
        completion_tokens=_sum("completion_tokens"),
        errors=Count("pk", filter=~Q(error="") | Q(upstream_status__gte=400)),
        ttft_ms=Avg("ttft_ms"),
    )
    money, priced = _money_saved(logs)
    series, bucket = _series(logs)
    return Usage(**totals, money_saved=money, priced=priced, series=series, bucket=bucket)


def project_usage(project: Project) -> Usage:
    return usage_of(RequestLog.objects.filter(project=project))


def session_usage(session: Session) -> Usage:
    return usage_of(RequestLog.objects.filter(session=session))


def _request_total(name: str):
    rows = (
        RequestLog.objects.filter(session=OuterRef("pk")).order_by().values("session")
        .annotate(total=Sum(name)).values("total")
    )  # fmt: skip
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def sessions_with_usage(project: Project) -> QuerySet:
    """The project's sessions, newest first, with turns, tokens and their last checkpoint."""
    latest = Checkpoint.objects.filter(session=OuterRef("pk")).order_by("-sequence")
    turns = Session.objects.filter(pk=OuterRef("pk")).annotate(n=Count("messages")).values("n")
    return (
        Session.objects.filter(project=project)
        .select_related("user")
        .annotate(
            turns=Subquery(turns, output_field=IntegerField()),
            tokens_sent=_request_total("tokens_sent"),
            tokens_forwarded=_request_total("tokens_forwarded"),
            last_checkpoint_sequence=Subquery(latest.values("sequence")[:1]),
            last_checkpoint_id=Subquery(latest.values("pk")[:1]),
            last_checkpoint_at=Subquery(latest.values("created_at")[:1]),
        )
        .annotate(tokens_saved=Greatest(F("tokens_sent") - F("tokens_forwarded"), Value(0)))
        .order_by("-updated_at")
    )
