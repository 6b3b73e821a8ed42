"""Websocket routes of the dashboard."""

from django.urls import path

from dashboard.consumers import ProjectConsumer

websocket_urlpatterns = [
    path("ws/projects/<int:project_id>/", ProjectConsumer.as_asgi()),
]
