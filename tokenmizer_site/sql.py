"""Plain SQL for the proxy's request path and its bookkeeping: there, compiling an ORM query takes
longer than the database takes to answer it (a keyed lookup: 0.9 ms against 0.15 ms), and holds
the interpreter from the requests being served meanwhile."""

from __future__ import annotations

from functools import cache

from django.db import connection


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _column(model, name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


@cache
def _columns(model) -> str:
    """The model's own columns, named: a column the database adds itself is not read."""
    return ", ".join(connection.ops.quote_name(f.column) for f in model._meta.concrete_fields)


def _fetch(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _write_many(sql: str, params: list[list]) -> None:
    if params:
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)


def rows(
    model, field: str, value, order_by: tuple[str, ...] | None = None, limit: int | None = None
):
    """The ``model`` instances whose ``field`` holds ``value``, as the ORM would build them, in
    ``order_by`` order (the model's own ordering by default; "-name" for descending)."""
    sql = f"SELECT {_columns(model)} FROM {_table(model)} WHERE {_column(model, field)} = %s"
    order = model._meta.ordering if order_by is None else order_by
    if order:
        sql += " ORDER BY " + ", ".join(
            _column(model, name.lstrip("-")) + (" DESC" if name.startswith("-") else "")
            for name in order
        )
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return list(model.objects.raw(sql, [value]))


def row(model, field: str, value):
    """The one ``model`` instance whose ``field`` holds ``value`` (a unique field), or None."""
    found = rows(model, field, value, limit=1)
    return found[0] if found else None


def column_values(model, field: str, value, column: str, order_by: str) -> list:
    """One column of the ``model`` rows whose ``field`` holds ``value``, in ``order_by`` order."""
    sql = (
        f"SELECT {_column(model, column)} FROM {_table(model)} WHERE {_column(model, field)} = %s "
        f"ORDER BY {_column(model, order_by)}"
    )
    return [found for (found,) in _fetch(sql, [value])]


def pairs(model, field: str, value, key: str, column: str, among) -> dict:
    """``{key: column}`` of the ``model`` rows whose ``field`` holds ``value`` and whose ``key``
    is one of ``among``."""
    among = list(among)
    if not among:
        return {}
    sql = (
        f"SELECT {_column(model, key)}, {_column(model, column)} FROM {_table(model)} "
        f"WHERE {_column(model, field)} = %s AND {_column(model, key)} IN "
        f"({', '.join(['%s'] * len(among))})"
    )
    return dict(_fetch(sql, [value, *among]))


def count(model, field: str, value) -> int:
    """How many ``model`` rows hold ``value`` in ``field``."""
    sql = f"SELECT COUNT(*) FROM {_table(model)} WHERE {_column(model, field)} = %s"
    return _fetch(sql, [value])[0][0]


def lock(model, pk) -> None:
    """Lock the ``model`` row ``pk`` until the transaction ends (where the database can)."""
    if connection.features.has_select_for_update:
        _fetch(
            f"SELECT 1 FROM {_table(model)} WHERE {_column(model, model._meta.pk.name)} = %s FOR UPDATE",
            [pk],
        )


def insert_rows(model, rows: list) -> None:
    """Store ``model`` instances as new rows, as ``bulk_create`` would (``auto_now_add`` aside:
    give such a field its value), without reading back their ids."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    sql = (
        f"INSERT INTO {_table(model)} ({', '.join(_column(model, f.name) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    _write_many(
        sql, [[f.get_db_prep_save(getattr(r, f.attname), connection) for f in fields] for r in rows]
    )


def update_rows(model, rows: list, fields: list[str]) -> None:
    """Write ``fields`` of these ``model`` instances to their rows, one statement for all."""
    targets = [model._meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{_column(model, f.name)} = %s" for f in targets)
    sql = (
        f"UPDATE {_table(model)} SET {assignments} WHERE {_column(model, model._meta.pk.name)} = %s"
    )
    _write_many(
        sql,
        [
            [*(f.get_db_prep_save(getattr(r, f.attname), connection) for f in targets), r.pk]
            for r in rows
        ],
    )
