"""The WSGI application, for the management commands' development server."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tokenmizer_site.settings")
application = get_wsgi_application()
