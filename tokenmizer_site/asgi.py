"""The ASGI application: the proxy under /v1/, everything else Django, routed through Channels."""

import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tokenmizer_site.settings")
django_asgi_app = get_asgi_application()

# Imported once the apps are loaded: these modules use the ORM.
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from dashboard.routing import websocket_urlpatterns  # noqa: E402
from proxy.app import application as proxy_app  # noqa: E402
from tokenmizer_site.services import check_services  # noqa: E402

check_services()  # refuse to serve when a configured service (database, Redis) does not answer

# The event loop shares the GIL with the bookkeeping threads (recording exchanges, and extraction
# itself on the embedded profile). Python's default 5 ms switch interval lets such a thread keep
# a request waiting that long; 0.5 ms hands the GIL back to the loop sooner.
sys.setswitchinterval(0.0005)

application = ProtocolTypeRouter(
    {
        "http": URLRouter([re_path(r"^v1/", proxy_app), re_path(r"", django_asgi_app)]),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
