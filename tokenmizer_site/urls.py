"""URL routes of the whole site."""

from django.contrib import admin
from django.urls import include, path

from proxy.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/", include("memory.api_urls")),
    path("", include("dashboard.urls", namespace="dashboard")),
]
