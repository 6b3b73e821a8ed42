"""The requests this process is serving, so that work in its background can wait for a pause."""

import threading
import time


class _Serving:
    """``with serving:`` around the handling of one request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._last_end = time.monotonic()

    def __enter__(self) -> None:
        with self._lock:
            self._count += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._count -= 1
            self._last_end = time.monotonic()

    def quiet_for(self) -> float:
        """Seconds since this process last served a request; 0 while it serves one."""
        with self._lock:
            return 0.0 if self._count else time.monotonic() - self._last_end


serving = _Serving()
quiet_for = serving.quiet_for
