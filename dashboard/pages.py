"""Rendering a page, or just the region an htmx request targets (root id = partial name)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render


def render_page(
    request: HttpRequest, template: str, context: dict, partials: Iterable[str] = ()
) -> HttpResponse:
    """The whole page; for an htmx request aimed at one of ``partials``, only that region."""
    target = request.htmx.target if request.htmx else None
    if target and target in partials and not request.htmx.history_restore_request:
        return render(request, f"dashboard/partials/{target}.html", context)
    return render(request, template, context)


def render_partial(
    request: HttpRequest, name: str, context: dict, event: str | None = None, status: int = 200
) -> HttpResponse:
    """A region re-rendered after a POST, telling the rest of the page through HX-Trigger."""
    response = render(request, f"dashboard/partials/{name}.html", context, status=status)
    if event:
        response["HX-Trigger"] = json.dumps({event: {}})
    return response


def after_post(
    request: HttpRequest,
    *,
    page: str,
    partial: str,
    context: dict,
    ok: bool,
    event: str | None = None,
    redirect_to: str | None = None,
) -> HttpResponse:
    """htmx gets the re-rendered region (and the event, if it worked); a plain form post gets the
    page back, or a redirect to it once the change is made."""
    if request.htmx:
        return render_partial(request, partial, context, event if ok else None)
    if ok and redirect_to:
        return redirect(redirect_to)
    return render(request, page, context, status=200 if ok else 400)
