"""Application config of the dashboard app."""

from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"
