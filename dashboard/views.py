"""Pages of the team dashboard: parse the request, call one function, render the page or a region."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from dashboard import charts, usage
from dashboard.access import Access, access_to, project_access
from dashboard.forms import (
    InvalidateForm,
    KeyCreateForm,
    MemberAddForm,
    NodeFilterForm,
    ProjectCreateForm,
    ProjectSettingsForm,
    ResolveForm,
    RoleForm,
    UpstreamForm,
)
from dashboard.pages import after_post, render_page
from memory import branches, checkpoints, decisions, exports, members, review, timeline
from memory.graph import resume
from memory.models import Checkpoint, DecisionTransition, Membership, Node, Session
from memory.projects import create_project
from proxy.keys import create_key, revoke_key
from proxy.models import ApiKey


def _session_access(user, pk: int) -> tuple[Session, Access]:
    session = get_object_or_404(
        Session.objects.for_user(user).select_related("project", "user"), pk=pk
    )
    return session, access_to(user, session.project)


# ---- projects ---------------------------------------------------------------------------------


def _projects_context(request: HttpRequest, form: ProjectCreateForm | None = None) -> dict:
    memberships = Membership.objects.filter(user=request.user).select_related("project")
    return {
        "memberships": memberships.order_by("project__name"),
        "form": form or ProjectCreateForm(),
    }


@login_required
@require_GET
def project_list(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/project_list.html", _projects_context(request))


@login_required
@require_POST
def project_create(request: HttpRequest) -> HttpResponse:
    form = ProjectCreateForm(request.POST)
    if not form.is_valid():
        return render(
            request, "dashboard/project_list.html", _projects_context(request, form), status=400
        )
    project = create_project(form.cleaned_data["name"], request.user)
    return redirect("dashboard:project-detail", pk=project.pk)


@login_required
@require_GET
def project_detail(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk)
    context = {
        "access": access, "project": access.project, "tab": "sessions",
        "sessions": usage.sessions_with_usage(access.project),
        "contested": review.contested_count(access.project),
    }  # fmt: skip
    return render_page(request, "dashboard/project_detail.html", context, ["session-list"])


# ---- members and settings (owners) ------------------------------------------------------------


def _members_context(access: Access, form: MemberAddForm | None = None, error: str = "") -> dict:
    memberships = access.project.memberships.select_related("user").order_by("user__username")
    return {
        "access": access, "project": access.project, "tab": "members", "error": error,
        "memberships": memberships, "form": form or MemberAddForm(project=access.project),
        "role_form": RoleForm(),
    }  # fmt: skip


@login_required
@require_GET
def member_list(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk)
    return render_page(request, "dashboard/members.html", _members_context(access), ["member-list"])


@login_required
@require_POST
def member_add(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk).require_owner()
    form = MemberAddForm(request.POST, project=access.project)
    ok = form.is_valid()
    if ok:
        members.add_member(access.project, form.cleaned_data["username"], form.cleaned_data["role"])
        form = None
    return after_post(
        request, page="dashboard/members.html", partial="member-list", ok=ok,
        context=_members_context(access, form), event="members-changed",
        redirect_to=reverse("dashboard:member-list", args=[pk]),
    )  # fmt: skip


def _member_change(request: HttpRequest, pk: int, member_pk: int, change) -> HttpResponse:
    access = project_access(request.user, pk).require_owner()
    membership = get_object_or_404(access.project.memberships, pk=member_pk)
    error = ""
    try:
        change(membership)
    except (members.MembershipError, ValueError) as exc:
        error = str(exc)
    return after_post(
        request, page="dashboard/members.html", partial="member-list", ok=not error,
        context=_members_context(access, error=error), event="members-changed",
        redirect_to=reverse("dashboard:member-list", args=[pk]),
    )  # fmt: skip


@login_required
@require_POST
def member_role(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    form = RoleForm(request.POST)

    def change(membership: Membership) -> None:
        if not form.is_valid():
            raise ValueError("choose owner, member or viewer")
        members.change_role(membership, form.cleaned_data["role"])

    return _member_change(request, pk, member_pk, change)


@login_required
@require_POST
def member_remove(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    return _member_change(request, pk, member_pk, members.remove_member)


def _settings_context(access: Access, form=None, upstream_form=None, saved=False) -> dict:
    return {
        "access": access, "project": access.project, "tab": "settings", "saved": saved,
        "form": form or ProjectSettingsForm(instance=access.project),
        "upstreams": access.project.upstreams.all(),
        "upstream_form": upstream_form or UpstreamForm(project=access.project),
    }  # fmt: skip


@login_required
def project_settings(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk)
    if request.method != "POST":
        context = _settings_context(access)
        return render_page(request, "dashboard/settings.html", context, ["settings-form"])
    access.require_owner()
    form = ProjectSettingsForm(request.POST, instance=access.project)
    ok = form.is_valid()
    if ok:
        form.save()
    return after_post(
        request, page="dashboard/settings.html", partial="settings-form", ok=ok,
        context=_settings_context(access, form, saved=ok), event="settings-saved",
        redirect_to=reverse("dashboard:project-settings", args=[pk]),
    )  # fmt: skip


@login_required
@require_POST
def upstream_add(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk).require_owner()
    form = UpstreamForm(request.POST, project=access.project)
    ok = form.is_valid()
    if ok:
        form.save()
        form = None
    return after_post(
        request, page="dashboard/settings.html", partial="upstream-list", ok=ok,
        context=_settings_context(access, upstream_form=form), event="upstreams-changed",
        redirect_to=reverse("dashboard:project-settings", args=[pk]),
    )  # fmt: skip


@login_required
@require_POST
def upstream_delete(request: HttpRequest, pk: int, upstream_pk: int) -> HttpResponse:
    access = project_access(request.user, pk).require_owner()
    get_object_or_404(access.project.upstreams, pk=upstream_pk).delete()
    return after_post(
        request, page="dashboard/settings.html", partial="upstream-list", ok=True,
        context=_settings_context(access), event="upstreams-changed",
        redirect_to=reverse("dashboard:project-settings", args=[pk]),
    )  # fmt: skip


# ---- decisions: history and the review queue --------------------------------------------------


@login_required
@require_GET
def decision_history(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk)
    context = {
        "access": access, "project": access.project, "tab": "decisions",
        "transitions": review.decision_history(access.project)[:500],
    }  # fmt: skip
    return render_page(request, "dashboard/decisions.html", context, ["decision-history"])


def _review_context(access: Access, bound: ResolveForm | None = None, error: str = "") -> dict:
    items = []
    for pair in review.contested_pairs(access.project):
        posted = bound is not None and bound.data.get("node_a") == str(pair.a.pk)
        initial = {"node_a": pair.a.pk, "node_b": pair.b.pk}
        items.append({
            "pair": pair, "form": bound if posted else ResolveForm(initial=initial),
            "error": error if posted else "",
        })  # fmt: skip
    # A pair someone else settled meanwhile is gone from the queue: say why at its top.
    stray = error if not any(item["error"] for item in items) else ""
    return {"access": access, "project": access.project, "tab": "review", "items": items,
            "error": stray}  # fmt: skip


@login_required
@require_GET
def review_queue(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk)
    return render_page(request, "dashboard/review.html", _review_context(access), ["review-queue"])


@login_required
@require_POST
def review_resolve(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk).require_write()
    form, error = ResolveForm(request.POST), ""
    ok = form.is_valid()
    if ok:
        nodes = Node.objects.filter(session__project=access.project)
        a = get_object_or_404(nodes, pk=form.cleaned_data["node_a"])
        b = get_object_or_404(nodes, pk=form.cleaned_data["node_b"])
        data = form.cleaned_data
        try:
            decisions.resolve_contested(a, b, data["outcome"], data["reason"], request.user)
        except decisions.DecisionError as exc:
            ok, error = False, str(exc)
    return after_post(
        request, page="dashboard/review.html", partial="review-queue", ok=ok,
        context=_review_context(access, None if ok else form, error), event="decision-resolved",
        redirect_to=reverse("dashboard:review-queue", args=[pk]),
    )  # fmt: skip


# ---- sessions, graphs, nodes --------------------------------------------------------------------


def _graph_view(session: Session, form: NodeFilterForm) -> timeline.GraphView:
    data = form.cleaned_data if form.is_valid() else {}
    return timeline.session_graph(session, data.get("position"), data.get("at"))


@login_required
@require_GET
def session_detail(request: HttpRequest, pk: int) -> HttpResponse:
    session, access = _session_access(request.user, pk)
    form = NodeFilterForm(request.GET)
    view = _graph_view(session, form)
    context = {
        "access": access, "project": session.project, "session": session, "tab": "sessions",
        "form": form, "view": view, "nodes": form.filtered(view.nodes),
        "last_position": timeline.last_position(session),
        "resume": resume.render(view.graph, "standard"),
        "contested": review.contested_pairs(session.project, session.pk),
        "checkpoint": session.checkpoints.order_by("-sequence").first(),
    }  # fmt: skip
    return render_page(request, "dashboard/session_detail.html", context, ["node-table"])


@login_required
@require_GET
def session_graph(request: HttpRequest, pk: int) -> HttpResponse:
    session, access = _session_access(request.user, pk)
    context = {
        "access": access, "project": session.project, "session": session, "tab": "sessions",
        "form": NodeFilterForm(request.GET),
        "last_position": timeline.last_position(session),
    }  # fmt: skip
    return render(request, "dashboard/session_graph.html", context)


@login_required
@require_GET
def session_graph_data(request: HttpRequest, pk: int) -> HttpResponse:
    session, _ = _session_access(request.user, pk)
    view = _graph_view(session, NodeFilterForm(request.GET))
    return JsonResponse(timeline.graph_data(view))


# format -> (export, content type, file extension)
_EXPORTS = {
    "json": (exports.d3_json, "application/json", "json"),
    "html": (exports.html_page, "text/html; charset=utf-8", "html"),
    "canvas": (exports.obsidian_canvas, "application/json", "canvas"),
}


@login_required
@require_GET
def session_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    session, _ = _session_access(request.user, pk)
    if fmt not in _EXPORTS:
        raise Http404("no such export format")
    export, content_type, extension = _EXPORTS[fmt]
    body = export(session)
    if not isinstance(body, str):
        body = json.dumps(body, ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type=content_type)
    name = slugify(str(session)) or f"session-{session.pk}"
    response["Content-Disposition"] = f'attachment; filename="{name}-graph.{extension}"'
    return response


@login_required
@require_GET
def node_detail(request: HttpRequest, pk: int) -> HttpResponse:
    node = get_object_or_404(
        Node.objects.for_user(request.user).select_related("session__project", "evidence_message"),
        pk=pk,
    )
    return render_page(
        request, "dashboard/node_detail.html", _node_context(request, node), ["node-status"]
    )


def _node_context(
    request: HttpRequest, node: Node, form: InvalidateForm | None = None, error=""
) -> dict:
    transitions = DecisionTransition.objects.filter(
        Q(old_node=node) | Q(new_node=node), session=node.session
    ).select_related("trigger_message", "actor_user")
    return {
        "access": access_to(request.user, node.session.project), "project": node.session.project,
        "session": node.session, "node": node, "tab": "sessions", "error": error,
        "edges_out": node.edges_out.select_related("target"),
        "edges_in": node.edges_in.select_related("source"),
        "transitions": transitions, "form": form or InvalidateForm(),
    }  # fmt: skip


@login_required
@require_POST
def node_invalidate(request: HttpRequest, pk: int) -> HttpResponse:
    node = get_object_or_404(Node.objects.for_user(request.user).select_related("session"), pk=pk)
    access_to(request.user, node.session.project).require_write()
    form, error = InvalidateForm(request.POST), ""
    ok = form.is_valid()
    if ok:
        try:
            decisions.invalidate(node, form.cleaned_data["reason"], request.user)
            form = None
        except decisions.DecisionError as exc:
            ok, error = False, str(exc)
        node.refresh_from_db()
    return after_post(
        request, page="dashboard/node_detail.html", partial="node-status", ok=ok,
        context=_node_context(request, node, form, error), event="decision-resolved",
        redirect_to=reverse("dashboard:node-detail", args=[pk]),
    )  # fmt: skip


# ---- checkpoints --------------------------------------------------------------------------------


@login_required
@require_GET
def checkpoint_list(request: HttpRequest, pk: int) -> HttpResponse:
    session, access = _session_access(request.user, pk)
    context = {
        "access": access, "project": session.project, "session": session, "tab": "sessions",
        "checkpoints": session.checkpoints.order_by("-sequence").select_related("parent"),
    }  # fmt: skip
    return render_page(request, "dashboard/checkpoint_list.html", context, ["checkpoint-list"])


@login_required
@require_GET
def checkpoint_detail(request: HttpRequest, pk: int) -> HttpResponse:
    checkpoint = get_object_or_404(
        Checkpoint.objects.for_user(request.user).select_related("session__project", "parent"),
        pk=pk,
    )
    context = _checkpoint_context(request, checkpoint)
    return render(request, "dashboard/checkpoint_detail.html", context, status=context["status"])


def _checkpoint_context(request: HttpRequest, checkpoint: Checkpoint, error: str = "") -> dict:
    session = checkpoint.session
    lineage, cursor = [], checkpoint
    while cursor is not None:
        lineage.append(cursor)
        cursor = cursor.parent
    try:
        checkpoints.verify(checkpoint)
        tampered = ""
    except checkpoints.TamperedCheckpoint as exc:
        tampered = str(exc)  # its text is not shown, nor offered to branch from
    context = {
        "access": access_to(request.user, session.project), "project": session.project,
        "session": session, "checkpoint": checkpoint, "lineage": lineage[::-1], "tab": "sessions",
        "tampered": tampered, "branch_error": error, "status": 409 if tampered else 200,
        "tiers": [] if tampered else [
            ("critical", checkpoint.critical, checkpoint.critical_tokens),
            ("standard", checkpoint.standard, checkpoint.standard_tokens),
            ("full", checkpoint.full, checkpoint.full_tokens)],
    }  # fmt: skip
    return context


@login_required
@require_POST
def checkpoint_branch(request: HttpRequest, pk: int) -> HttpResponse:
    checkpoint = get_object_or_404(
        Checkpoint.objects.for_user(request.user).select_related("session__project", "parent"),
        pk=pk,
    )
    access_to(request.user, checkpoint.session.project).require_write()
    try:
        branch = branches.branch_session(
            checkpoint,
            request.user,
            external_id=request.POST.get("external_id", ""),
            include_transcript=request.POST.get("include_transcript") in ("on", "true", "1"),
        )
    except (branches.BranchError, checkpoints.TamperedCheckpoint) as exc:
        context = _checkpoint_context(request, checkpoint, error=str(exc))
        status = 409 if context["tampered"] else 400
        return render(request, "dashboard/checkpoint_detail.html", context, status=status)
    return redirect("dashboard:session-detail", branch.pk)


@login_required
@require_GET
def session_lineage(request: HttpRequest, pk: int) -> HttpResponse:
    session, access = _session_access(request.user, pk)
    context = {
        "access": access, "project": session.project, "session": session, "tab": "sessions",
        "rows": branches.lineage_rows(branches.lineage(session)),
        "source": session.branched_from and Checkpoint.objects.select_related("session").get(
            pk=session.branched_from_id),
    }  # fmt: skip
    return render(request, "dashboard/session_lineage.html", context)


# ---- usage --------------------------------------------------------------------------------------


def _usage_context(summary: usage.Usage) -> dict:
    fmt = "%H:%M" if summary.bucket == "hour" else "%b %d"
    chart = (
        charts.paired_bars(summary.series, ("sent", "forwarded"), fmt) if summary.series else None
    )
    return {"usage": summary, "chart": chart}


@login_required
@require_GET
def project_usage(request: HttpRequest, pk: int) -> HttpResponse:
    access = project_access(request.user, pk)
    context = {"access": access, "project": access.project, "tab": "usage",
               "sessions": usage.sessions_with_usage(access.project),
               **_usage_context(usage.project_usage(access.project))}  # fmt: skip
    return render_page(request, "dashboard/usage.html", context, ["usage-panel"])


@login_required
@require_GET
def session_usage(request: HttpRequest, pk: int) -> HttpResponse:
    session, access = _session_access(request.user, pk)
    context = {"access": access, "project": session.project, "session": session, "tab": "sessions",
               **_usage_context(usage.session_usage(session))}  # fmt: skip
    return render_page(request, "dashboard/session_usage.html", context, ["usage-panel"])


# ---- API keys -----------------------------------------------------------------------------------


def _keys_context(request: HttpRequest, form: KeyCreateForm | None = None, issued=None) -> dict:
    keys = ApiKey.objects.for_user(request.user).select_related("user", "project")
    return {
        "own_keys": [k for k in keys if k.user_id == request.user.pk],
        "member_keys": [k for k in keys if k.user_id != request.user.pk],
        "form": form or KeyCreateForm(user=request.user), "issued": issued,
        "base_url": request.build_absolute_uri("/v1"),
    }  # fmt: skip


@login_required
@require_GET
def key_list(request: HttpRequest) -> HttpResponse:
    return render_page(request, "dashboard/keys.html", _keys_context(request), ["key-panel"])


@login_required
@require_POST
def key_create(request: HttpRequest) -> HttpResponse:
    form = KeyCreateForm(request.POST, user=request.user)
    issued = None
    if form.is_valid():
        data = form.cleaned_data
        row, plaintext = create_key(data["holder"], data["project"], data["name"])
        issued, form = {"key": row, "plaintext": plaintext}, None
    # No redirect, even without htmx: the plaintext is shown in this response and never again.
    return after_post(
        request, page="dashboard/keys.html", partial="key-panel", ok=issued is not None,
        context=_keys_context(request, form, issued), event="keys-changed",
    )  # fmt: skip


@login_required
@require_POST
def key_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    revoke_key(get_object_or_404(ApiKey.objects.for_user(request.user), pk=pk))
    return after_post(
        request, page="dashboard/keys.html", partial="key-panel", ok=True,
        context=_keys_context(request), event="keys-changed",
        redirect_to=reverse("dashboard:key-list"),
    )  # fmt: skip
