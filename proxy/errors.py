"""OpenAI-style error bodies: {"error": {"message", "type", "param", "code"}}."""

from __future__ import annotations

import json
from dataclasses import dataclass

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
}


@dataclass
class ProxyError(Exception):
    """An error the proxy answers with, in the OpenAI convention."""

    status: int
    message: str
    code: str | None = None
    param: str | None = None
    headers: tuple[tuple[bytes, bytes], ...] = ()

    @property
    def type(self) -> str:
        return _TYPES.get(self.status, "api_error" if self.status < 500 else "server_error")

    def payload(self) -> dict:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }

    def body(self) -> bytes:
        return json.dumps(self.payload()).encode()
