"""URL routes of the team dashboard."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from dashboard import views

app_name = "dashboard"

urlpatterns = [
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            template_name="dashboard/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),  # fmt: skip
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(
            template_name="dashboard/password_change.html",
            success_url=reverse_lazy("dashboard:password-change-done"),
        ),
        name="password-change",
    ),  # fmt: skip
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="dashboard/password_change_done.html"
        ),
        name="password-change-done",
    ),  # fmt: skip
    path("", views.project_list, name="project-list"),
    path("projects/new/", views.project_create, name="project-create"),
    path("projects/<int:pk>/", views.project_detail, name="project-detail"),
    path("projects/<int:pk>/members/", views.member_list, name="member-list"),
    path("projects/<int:pk>/members/add/", views.member_add, name="member-add"),
    path("projects/<int:pk>/members/<int:member_pk>/role/", views.member_role, name="member-role"),
    path(
        "projects/<int:pk>/members/<int:member_pk>/remove/",
        views.member_remove,
        name="member-remove",
    ),
    path("projects/<int:pk>/settings/", views.project_settings, name="project-settings"),
    path("projects/<int:pk>/upstreams/add/", views.upstream_add, name="upstream-add"),
    path(
        "projects/<int:pk>/upstreams/<int:upstream_pk>/delete/",
        views.upstream_delete,
        name="upstream-delete",
    ),  # fmt: skip
    path("projects/<int:pk>/decisions/", views.decision_history, name="decision-history"),
    path("projects/<int:pk>/review/", views.review_queue, name="review-queue"),
    path("projects/<int:pk>/review/resolve/", views.review_resolve, name="review-resolve"),
    path("projects/<int:pk>/usage/", views.project_usage, name="project-usage"),
    path("sessions/<int:pk>/", views.session_detail, name="session-detail"),
    path("sessions/<int:pk>/graph/", views.session_graph, name="session-graph"),
    path("sessions/<int:pk>/graph.json", views.session_graph_data, name="session-graph-data"),
    path("sessions/<int:pk>/export/<str:fmt>/", views.session_export, name="session-export"),
    path("sessions/<int:pk>/checkpoints/", views.checkpoint_list, name="checkpoint-list"),
    path("sessions/<int:pk>/usage/", views.session_usage, name="session-usage"),
    path("checkpoints/<int:pk>/", views.checkpoint_detail, name="checkpoint-detail"),
    path("checkpoints/<int:pk>/branch/", views.checkpoint_branch, name="checkpoint-branch"),
    path("sessions/<int:pk>/lineage/", views.session_lineage, name="session-lineage"),
    path("nodes/<int:pk>/", views.node_detail, name="node-detail"),
    path("nodes/<int:pk>/invalidate/", views.node_invalidate, name="node-invalidate"),
    path("keys/", views.key_list, name="key-list"),
    path("keys/new/", views.key_create, name="key-create"),
    path("keys/<int:pk>/revoke/", views.key_revoke, name="key-revoke"),
]
