"""Plain-SQL reads of model rows, for the proxy's request path: there, compiling an ORM query
takes longer than the database takes to answer it (a keyed lookup: 0.9 ms against 0.15 ms)."""

from __future__ import annotations

from django.db import connection


def rows(model, field: str, value, order_by: tuple[str, ...] = (), limit: int | None = None):
    """The ``model`` instances whose ``field`` holds ``value``, as the ORM would build them."""
    quote = connection.ops.quote_name

    def column(name: str) -> str:
        return quote(model._meta.get_field(name).column)

    sql = f"SELECT * FROM {quote(model._meta.db_table)} WHERE {column(field)} = %s"
    if order_by:
        sql += " ORDER BY " + ", ".join(column(name) for name in order_by)
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return list(model.objects.raw(sql, [value]))


def row(model, field: str, value):
    """The one ``model`` instance whose ``field`` holds ``value`` (a unique field), or None."""
    found = rows(model, field, value, limit=1)
    return found[0] if found else None
