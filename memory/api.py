"""The REST API: projects, sessions, their graphs, checkpoints and decisions, scoped to the caller."""

from __future__ import annotations

import json

from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import exceptions, generics, status
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from dashboard import usage
from dashboard.access import access_to
from memory import branches, checkpoints, decisions, exports, recall, review, stats, timeline
from memory import serializers as s
from memory.models import (
    Checkpoint,
    DecisionTransition,
    Edge,
    Membership,
    Message,
    Node,
    Project,
    Session,
)
from proxy import keys
from proxy.models import ApiKey

# ---- who is calling, and what they may see -----------------------------------------------------


class ApiKeyAuthentication(BaseAuthentication):
    """``Authorization: Bearer tmz_…``: the key's user, seeing only the key's project."""

    def authenticate(self, request: Request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if header.split(" ", 1)[0].strip().lower() != "bearer":
            return None  # not ours: the browser session may still authenticate the request
        try:
            key = keys.authenticate(header)
        except keys.AuthError as error:
            raise exceptions.AuthenticationFailed(error.message, error.code) from None
        return key.user, key

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = ApiKeyAuthentication
    name = "apiKey"

    def get_security_definition(self, auto_schema) -> dict:
        return {"type": "http", "scheme": "bearer", "description": "A tmz_… project API key."}


def scoped(queryset: QuerySet, request: Request, project_path: str) -> QuerySet:
    """Rows of the caller's projects: with an API key only its project, else all the user's."""
    queryset = queryset.for_user(request.user)
    if isinstance(request.auth, ApiKey):
        queryset = queryset.filter(**{project_path: request.auth.project_id})
    return queryset


def get_project(request: Request, pk: int) -> Project:
    return get_object_or_404(scoped(Project.objects.all(), request, "pk"), pk=pk)


def get_session(request: Request, pk: int) -> Session:
    sessions = scoped(Session.objects.select_related("project", "user"), request, "project")
    return get_object_or_404(sessions, pk=pk)


def get_checkpoint(request: Request, pk: int) -> Checkpoint:
    rows = scoped(
        Checkpoint.objects.select_related("session__project"), request, "session__project"
    )
    return get_object_or_404(rows, pk=pk)


def get_node(request: Request, pk: int) -> Node:
    rows = scoped(Node.objects.select_related("session__project"), request, "session__project")
    return get_object_or_404(rows, pk=pk)


def require_write(request: Request, project: Project) -> None:
    """Viewers read but do not act: 403 with the reason (the caller already sees the project)."""
    access_to(request.user, project).require_write()


def query(serializer_class: type, request: Request) -> dict:
    """The validated query parameters, or a 400 naming the field."""
    params = serializer_class(data=request.query_params)
    params.is_valid(raise_exception=True)
    return params.validated_data


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


class Refused(exceptions.APIException):
    """The domain refused the action as asked (a DecisionError, a BranchError): its message."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"


ERRORS = {
    401: OpenApiResponse(s.ErrorSerializer, "No credentials, or a bad or revoked API key."),
    404: OpenApiResponse(s.ErrorSerializer, "No such object among the caller's projects."),
}
BAD_INPUT = {400: OpenApiResponse(OpenApiTypes.OBJECT, "Bad input: the field and what is wrong.")}
FORBIDDEN = {403: OpenApiResponse(s.ErrorSerializer, "Viewers can read but not act.")}
TAMPERED = {
    409: OpenApiResponse(s.ErrorSerializer, "The checkpoint was changed after it was made.")
}


class ApiView(generics.GenericAPIView):
    authentication_classes = [ApiKeyAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, checkpoints.TamperedCheckpoint):
            exc = Conflict(str(exc))
        elif isinstance(exc, decisions.DecisionError | branches.BranchError):
            exc = Refused(str(exc))
        return super().handle_exception(exc)


class ApiList(ApiView, generics.ListAPIView):
    """A paginated list; ``queryset`` names the model for the schema, ``rows`` fetches."""

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return self.rows(self.request, **self.kwargs)


# ---- projects and sessions ----------------------------------------------------------------------


def projects_with_role(request: Request) -> QuerySet:
    role = Membership.objects.filter(project=OuterRef("pk"), user=request.user).values("role")
    return scoped(Project.objects.all(), request, "pk").annotate(role=Subquery(role[:1]))


@extend_schema_view(
    get=extend_schema(
        summary="The caller's projects", responses={200: s.ProjectSerializer, **ERRORS}
    )
)
class ProjectList(ApiList):
    queryset = Project.objects.none()
    serializer_class = s.ProjectSerializer

    def rows(self, request):
        return projects_with_role(request)


class ProjectDetail(ApiView):
    serializer_class = s.ProjectSerializer

    @extend_schema(summary="A project", responses={200: s.ProjectSerializer, **ERRORS})
    def get(self, request: Request, pk: int) -> Response:
        project = get_object_or_404(projects_with_role(request), pk=pk)
        return Response(s.ProjectSerializer(project).data)


@extend_schema_view(
    get=extend_schema(
        summary="The project's sessions, most recently active first",
        parameters=[s.SessionFilterSerializer],
        responses={200: s.SessionSerializer, **BAD_INPUT, **ERRORS},
    )
)
class ProjectSessions(ApiList):
    queryset = Session.objects.none()
    serializer_class = s.SessionSerializer

    def rows(self, request, pk: int):
        project = get_project(request, pk)
        external_id = query(s.SessionFilterSerializer, request).get("external_id")
        sessions = project.sessions.select_related("user")
        return sessions.filter(external_id=external_id) if external_id else sessions


class SessionDetail(ApiView):
    serializer_class = s.SessionSerializer

    @extend_schema(summary="A session", responses={200: s.SessionSerializer, **ERRORS})
    def get(self, request: Request, pk: int) -> Response:
        return Response(s.SessionSerializer(get_session(request, pk)).data)


@extend_schema_view(
    get=extend_schema(
        summary="The session's transcript, in order", responses={200: s.MessageSerializer, **ERRORS}
    )
)
class SessionMessages(ApiList):
    queryset = Message.objects.none()
    serializer_class = s.MessageSerializer

    def rows(self, request, pk: int):
        return get_session(request, pk).messages.order_by("position")


# ---- the graph, now and then --------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        summary="The session's nodes, filtered",
        parameters=[s.NodeFilterSerializer],
        responses={200: s.NodeSerializer, **BAD_INPUT, **ERRORS},
    )
)
class SessionNodes(ApiList):
    queryset = Node.objects.none()
    serializer_class = s.NodeSerializer

    def rows(self, request, pk: int):
        nodes = get_session(request, pk).nodes.order_by("valid_from", "pk")
        filters = query(s.NodeFilterSerializer, request)
        if filters.get("type"):
            nodes = nodes.filter(type=filters["type"])
        if filters.get("status"):
            nodes = nodes.filter(status=filters["status"])
        if filters.get("q"):
            nodes = nodes.filter(label__icontains=filters["q"])
        return nodes


@extend_schema_view(
    get=extend_schema(summary="The session's edges", responses={200: s.EdgeSerializer, **ERRORS})
)
class SessionEdges(ApiList):
    queryset = Edge.objects.none()
    serializer_class = s.EdgeSerializer

    def rows(self, request, pk: int):
        return get_session(request, pk).edges.order_by("pk")


def graph_payload(view: timeline.GraphView, filters: dict) -> dict:
    """The view's nodes that pass the filters, and the edges between them, as ids."""
    kind, state, text = filters.get("type"), filters.get("status"), filters.get("q", "").casefold()
    nodes = [
        n
        for n in view.nodes
        if (not kind or n.type_name == kind)
        and (not state or n.status_name == state)
        and (not text or text in n.node.label.casefold())
    ]
    shown = {n.pk for n in nodes}
    edges = []
    for edge in view.graph.edges.values():
        source, target = view.ids.get(edge.source), view.ids.get(edge.target)
        if source in shown and target in shown:
            edges.append({**vars(edge), "source": source, "target": target, "type": str(edge.type)})
    edges.sort(key=lambda e: (e["source"], e["target"], e["type"]))
    return {"nodes": nodes, "edges": edges}


class SessionGraph(ApiView):
    serializer_class = s.GraphSerializer

    @extend_schema(
        summary="The session's graph now: nodes, and the edges between them",
        parameters=[s.NodeFilterSerializer],
        responses={200: s.GraphSerializer, **BAD_INPUT, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> Response:
        session = get_session(request, pk)
        filters = query(s.NodeFilterSerializer, request)
        view = timeline.session_graph(session)
        return Response(s.GraphSerializer(graph_payload(view, filters)).data)


class SessionHistory(ApiView):
    serializer_class = s.HistorySerializer

    @extend_schema(
        summary="Time travel: the graph as it held at a message, or as known at a moment",
        parameters=[s.HistoryQuerySerializer],
        responses={200: s.HistorySerializer, **BAD_INPUT, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> Response:
        session = get_session(request, pk)
        filters = query(s.HistoryQuerySerializer, request)
        at = filters["at"]
        if isinstance(at, int):
            view, axis = timeline.session_graph(session, position=at), "valid"
        else:
            view, axis = timeline.session_graph(session, at=at), "record"
        payload = {**graph_payload(view, filters), "at": at, "axis": axis}
        return Response(s.HistorySerializer(payload).data)


@extend_schema_view(
    get=extend_schema(
        summary="Why decisions changed, in order", responses={200: s.TransitionSerializer, **ERRORS}
    )
)
class SessionTransitions(ApiList):
    queryset = DecisionTransition.objects.none()
    serializer_class = s.TransitionSerializer

    def rows(self, request, pk: int):
        return get_session(request, pk).transitions.order_by("sequence")


# ---- checkpoints, the resume, branches ----------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        summary="The session's checkpoints, oldest first",
        responses={200: s.CheckpointSerializer, **ERRORS},
    )
)
class SessionCheckpoints(ApiList):
    queryset = Checkpoint.objects.none()
    serializer_class = s.CheckpointSerializer

    @extend_schema(
        summary="Checkpoint the graph now",
        description="201 with a new checkpoint; 200 with the latest one when the graph has not "
        "changed since.",
        request=None,
        responses={
            201: s.CheckpointDetailSerializer,
            200: s.CheckpointDetailSerializer,
            **FORBIDDEN,
            **TAMPERED,
            **ERRORS,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        session = get_session(request, pk)
        require_write(request, session.project)
        before = checkpoints.latest_checkpoint(session)
        checkpoint = checkpoints.verify(checkpoints.save_checkpoint(session))
        made = before is None or checkpoint.pk != before.pk
        return Response(
            s.CheckpointDetailSerializer(checkpoint).data,
            status=status.HTTP_201_CREATED if made else status.HTTP_200_OK,
        )

    def rows(self, request, pk: int):
        return get_session(request, pk).checkpoints.order_by("sequence")


class CheckpointDetail(ApiView):
    serializer_class = s.CheckpointDetailSerializer

    @extend_schema(
        summary="A checkpoint: its three tiers, tokens, diff and parent",
        responses={200: s.CheckpointDetailSerializer, **TAMPERED, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> Response:
        checkpoint = checkpoints.verify(get_checkpoint(request, pk))
        return Response(s.CheckpointDetailSerializer(checkpoint).data)


class SessionResume(ApiView):
    serializer_class = s.ResumeSerializer

    @extend_schema(
        summary="The resume block of the current checkpoint",
        description="Checkpoints the graph first when it has changed since the latest checkpoint.",
        parameters=[s.ResumeQuerySerializer],
        responses={200: s.ResumeSerializer, **BAD_INPUT, **TAMPERED, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> Response:
        session = get_session(request, pk)
        level = query(s.ResumeQuerySerializer, request)["level"]
        checkpoint = checkpoints.verify(checkpoints.save_checkpoint(session))
        payload = {
            "level": level,
            "text": getattr(checkpoint, level),
            "tokens": getattr(checkpoint, f"{level}_tokens"),
            "checkpoint": checkpoint.pk,
        }
        return Response(s.ResumeSerializer(payload).data)


class CheckpointBranch(ApiView):
    serializer_class = s.SessionSerializer

    @extend_schema(
        summary="Start a new session from this checkpoint",
        request=s.BranchRequestSerializer,
        responses={201: s.SessionSerializer, **BAD_INPUT, **FORBIDDEN, **TAMPERED, **ERRORS},
    )
    def post(self, request: Request, pk: int) -> Response:
        checkpoint = get_checkpoint(request, pk)
        require_write(request, checkpoint.session.project)
        body = s.BranchRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        session = branches.branch_session(
            checkpoints.verify(checkpoint),
            request.user,
            external_id=body.validated_data.get("external_id"),
            include_transcript=body.validated_data["include_transcript"],
        )
        return Response(s.SessionSerializer(session).data, status=status.HTTP_201_CREATED)


class SessionLineage(ApiView):
    @extend_schema(
        summary="The checkpoint tree this session belongs to, across its branches",
        description="{} when no session of the tree has a checkpoint yet.",
        responses={200: s.LineageSerializer, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> Response:
        tree = branches.lineage(get_session(request, pk))
        return Response(s.LineageSerializer(tree).data if tree else {})


# ---- decisions ----------------------------------------------------------------------------------


class DecisionInvalidate(ApiView):
    serializer_class = s.NodeSerializer

    @extend_schema(
        summary="Mark a decision as wrong (it stays as a warning)",
        request=s.InvalidateSerializer,
        responses={200: s.NodeSerializer, **BAD_INPUT, **FORBIDDEN, **ERRORS},
    )
    def post(self, request: Request, node_id: int) -> Response:
        node = get_node(request, node_id)
        require_write(request, node.session.project)
        body = s.InvalidateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        decisions.invalidate(node, body.validated_data["reason"], request.user)
        node.refresh_from_db()
        return Response(s.NodeSerializer(node).data)


class DecisionResolve(ApiView):
    serializer_class = s.ResolvedSerializer

    @extend_schema(
        summary="Settle a contested pair of decisions",
        request=s.ResolveSerializer,
        responses={200: s.ResolvedSerializer, **BAD_INPUT, **FORBIDDEN, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        body = s.ResolveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        a, b = get_node(request, data["node_a"]), get_node(request, data["node_b"])
        require_write(request, a.session.project)
        decisions.resolve_contested(a, b, data["outcome"], data["reason"], request.user)
        a.refresh_from_db()
        b.refresh_from_db()
        return Response(s.ResolvedSerializer({"node_a": a, "node_b": b}).data)


@extend_schema_view(
    get=extend_schema(
        summary="Contested pairs waiting for a person, oldest first",
        responses={200: s.ContestedPairSerializer, **ERRORS},
    )
)
class ProjectContested(ApiList):
    queryset = Node.objects.none()
    serializer_class = s.ContestedPairSerializer

    def rows(self, request, pk: int):
        return review.contested_pairs(get_project(request, pk))


# ---- stats, usage, search -----------------------------------------------------------------------


class SessionStats(ApiView):
    serializer_class = s.SessionStatsSerializer

    @extend_schema(
        summary="Counts of the session's memory",
        responses={200: s.SessionStatsSerializer, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(
            s.SessionStatsSerializer(stats.session_stats(get_session(request, pk))).data
        )


class ProjectStats(ApiView):
    serializer_class = s.ProjectStatsSerializer

    @extend_schema(
        summary="Counts of the memory of all the project's sessions",
        responses={200: s.ProjectStatsSerializer, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(
            s.ProjectStatsSerializer(stats.project_stats(get_project(request, pk))).data
        )


def usage_payload(summary: usage.Usage) -> dict:
    return {
        **vars(summary),
        "tokens_saved": summary.tokens_saved,
        "saved_share": summary.saved_share,
    }


class ProjectUsage(ApiView):
    serializer_class = s.UsageSerializer

    @extend_schema(
        summary="Tokens and money the project saved", responses={200: s.UsageSerializer, **ERRORS}
    )
    def get(self, request: Request, pk: int) -> Response:
        summary = usage.project_usage(get_project(request, pk))
        return Response(s.UsageSerializer(usage_payload(summary)).data)


class SessionUsage(ApiView):
    serializer_class = s.UsageSerializer

    @extend_schema(
        summary="Tokens and money the session saved", responses={200: s.UsageSerializer, **ERRORS}
    )
    def get(self, request: Request, pk: int) -> Response:
        summary = usage.session_usage(get_session(request, pk))
        return Response(s.UsageSerializer(usage_payload(summary)).data)


@extend_schema_view(
    get=extend_schema(
        summary="Nodes across the project's sessions, most relevant first",
        parameters=[s.SearchQuerySerializer],
        responses={200: s.SearchResultSerializer, **BAD_INPUT, **ERRORS},
    )
)
class ProjectSearch(ApiList):
    queryset = Node.objects.none()
    serializer_class = s.SearchResultSerializer

    def rows(self, request, pk: int):
        project = get_project(request, pk)
        params = query(s.SearchQuerySerializer, request)
        return recall.search(project, params["q"], limit=params["limit"])


# ---- exports ------------------------------------------------------------------------------------


def download(body: str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)


class ExportD3(ApiView):
    @extend_schema(
        summary="The graph as D3 JSON (a download)",
        responses={(200, "application/json"): OpenApiTypes.OBJECT, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        session = get_session(request, pk)
        body = _json(exports.d3_json(session))
        return download(body, "application/json", f"session-{session.pk}-graph.json")


class ExportHtml(ApiView):
    @extend_schema(
        summary="The graph as one self-contained HTML page (a download)",
        responses={(200, "text/html"): OpenApiTypes.STR, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        session = get_session(request, pk)
        body = exports.html_page(session)
        return download(body, "text/html; charset=utf-8", f"session-{session.pk}-graph.html")


class ExportCanvas(ApiView):
    @extend_schema(
        summary="The graph as an Obsidian canvas (JSON Canvas; a download)",
        responses={(200, "application/json"): OpenApiTypes.OBJECT, **ERRORS},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        session = get_session(request, pk)
        body = _json(exports.obsidian_canvas(session))
        return download(body, "application/json", f"session-{session.pk}.canvas")
