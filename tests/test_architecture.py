"""The domain core stays plain Python: no module under memory/graph imports Django."""

import ast
from pathlib import Path

GRAPH = Path(__file__).resolve().parent.parent / "memory" / "graph"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_domain_core_never_imports_django():
    offenders = {
        path.name: sorted(
            m
            for m in imported_modules(path)
            if m.split(".")[0] in {"django", "rest_framework", "channels", "celery"}
        )
        for path in GRAPH.glob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) >= 8  # the core is really there
