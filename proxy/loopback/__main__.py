"""``python -m proxy.loopback``: the loopback provider, standalone."""

from proxy.loopback.server import main

main()
