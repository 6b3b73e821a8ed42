"""URL routes of the REST API, mounted under /api/, with its OpenAPI schema and docs page."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from memory import api

app_name = "api"

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("projects/", api.ProjectList.as_view(), name="project-list"),
    path("projects/<int:pk>/", api.ProjectDetail.as_view(), name="project-detail"),
    path("projects/<int:pk>/sessions/", api.ProjectSessions.as_view(), name="project-sessions"),
    path("projects/<int:pk>/contested/", api.ProjectContested.as_view(), name="project-contested"),
    path("projects/<int:pk>/stats/", api.ProjectStats.as_view(), name="project-stats"),
    path("projects/<int:pk>/usage/", api.ProjectUsage.as_view(), name="project-usage"),
    path("projects/<int:pk>/search/", api.ProjectSearch.as_view(), name="project-search"),
    path("sessions/<int:pk>/", api.SessionDetail.as_view(), name="session-detail"),
    path("sessions/<int:pk>/messages/", api.SessionMessages.as_view(), name="session-messages"),
    path("sessions/<int:pk>/nodes/", api.SessionNodes.as_view(), name="session-nodes"),
    path("sessions/<int:pk>/edges/", api.SessionEdges.as_view(), name="session-edges"),
    path("sessions/<int:pk>/graph/", api.SessionGraph.as_view(), name="session-graph"),
    path("sessions/<int:pk>/history/", api.SessionHistory.as_view(), name="session-history"),
    path(
        "sessions/<int:pk>/transitions/",
        api.SessionTransitions.as_view(),
        name="session-transitions",
    ),
    path(
        "sessions/<int:pk>/checkpoints/",
        api.SessionCheckpoints.as_view(),
        name="session-checkpoints",
    ),
    path("sessions/<int:pk>/resume/", api.SessionResume.as_view(), name="session-resume"),
    path("sessions/<int:pk>/stats/", api.SessionStats.as_view(), name="session-stats"),
    path("sessions/<int:pk>/usage/", api.SessionUsage.as_view(), name="session-usage"),
    path("sessions/<int:pk>/lineage/", api.SessionLineage.as_view(), name="session-lineage"),
    path("sessions/<int:pk>/export/d3/", api.ExportD3.as_view(), name="session-export-d3"),
    path("sessions/<int:pk>/export/html/", api.ExportHtml.as_view(), name="session-export-html"),
    path(
        "sessions/<int:pk>/export/canvas/", api.ExportCanvas.as_view(), name="session-export-canvas"
    ),
    path("checkpoints/<int:pk>/", api.CheckpointDetail.as_view(), name="checkpoint-detail"),
    path("checkpoints/<int:pk>/branch/", api.CheckpointBranch.as_view(), name="checkpoint-branch"),
    path(
        "decisions/<int:node_id>/invalidate/",
        api.DecisionInvalidate.as_view(),
        name="decision-invalidate",
    ),
    path("decisions/resolve/", api.DecisionResolve.as_view(), name="decision-resolve"),
]
