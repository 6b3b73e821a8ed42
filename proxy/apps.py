"""Application config of the proxy app."""

from django.apps import AppConfig


class ProxyConfig(AppConfig):
    name = "proxy"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from memory.models import Project
        from proxy.models import Upstream
        from proxy.sessions import forget_admissions

        def changed(**kwargs) -> None:
            # A project's settings or upstreams changed in this process: its next request is
            # admitted afresh (other processes see it within TOKENMIZER_ADMISSION_TTL_S).
            forget_admissions()

        for model in (Project, Upstream):
            post_save.connect(changed, sender=model, weak=False, dispatch_uid=f"admit-{model}")
            post_delete.connect(changed, sender=model, weak=False, dispatch_uid=f"admit-{model}")
