"""GET /healthz: whether the database and Redis answer, for load balancers and monitors."""

from django.http import JsonResponse
from django.views.decorators.http import require_GET

from tokenmizer_site.services import database_status, redis_status


@require_GET
def healthz(request):
    checks = {"database": database_status(), "redis": redis_status()}
    healthy = all(v in ("ok", "not configured") for v in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503
    )
