"""Application config of the proxy app."""

from django.apps import AppConfig


class ProxyConfig(AppConfig):
    name = "proxy"
