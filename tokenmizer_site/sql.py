"""Plain SQL for the proxy's request path and its bookkeeping: there, compiling an ORM query takes
longer than the database takes to answer it (a keyed lookup: 0.9 ms against 0.15 ms), and holds
the interpreter from the requests being served meanwhile."""

from __future__ import annotations

from django.db import connection


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def rows(model, field: str, value, order_by: tuple[str, ...] = (), limit: int | None = None):
    """The ``model`` instances whose ``field`` holds ``value``, as the ORM would build them."""

    def column(name: str) -> str:
        return _quote(model._meta.get_field(name).column)

    sql = f"SELECT * FROM {_quote(model._meta.db_table)} WHERE {column(field)} = %s"
    if order_by:
        sql += " ORDER BY " + ", ".join(column(name) for name in order_by)
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return list(model.objects.raw(sql, [value]))


def row(model, field: str, value):
    """The one ``model`` instance whose ``field`` holds ``value`` (a unique field), or None."""
    found = rows(model, field, value, limit=1)
    return found[0] if found else None


def column_values(model, field: str, value, column: str, order_by: str) -> list:
    """One column of the ``model`` rows whose ``field`` holds ``value``, in ``order_by`` order."""
    meta = model._meta
    sql = (
        f"SELECT {_quote(meta.get_field(column).column)} FROM {_quote(meta.db_table)} "
        f"WHERE {_quote(meta.get_field(field).column)} = %s "
        f"ORDER BY {_quote(meta.get_field(order_by).column)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value])
        return [found for (found,) in cursor.fetchall()]


def pairs(model, field: str, value, key: str, column: str, among=None) -> dict:
    """``{key: column}`` of the ``model`` rows whose ``field`` holds ``value`` and, with ``among``,
    whose ``key`` is one of ``among``."""
    meta = model._meta

    def name(f: str) -> str:
        return _quote(meta.get_field(f).column)

    sql = (
        f"SELECT {name(key)}, {name(column)} FROM {_quote(meta.db_table)} WHERE {name(field)} = %s"
    )
    params = [value]
    if among is not None:
        among = list(among)
        if not among:
            return {}
        sql += f" AND {name(key)} IN ({', '.join(['%s'] * len(among))})"
        params += among
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return dict(cursor.fetchall())


def lock(model, pk) -> None:
    """Lock the ``model`` row ``pk`` until the transaction ends (where the database can)."""
    if connection.features.has_select_for_update:
        meta = model._meta
        sql = (
            f"SELECT 1 FROM {_quote(meta.db_table)} WHERE {_quote(meta.pk.column)} = %s FOR UPDATE"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [pk])


def insert_rows(model, rows: list) -> None:
    """Store ``model`` instances as new rows, as ``bulk_create`` would (``auto_now_add`` aside:
    give such a field its value), without reading back their ids."""
    if not rows:
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    params = [
        [f.get_db_prep_save(getattr(row, f.attname), connection) for f in fields] for row in rows
    ]
    sql = (
        f"INSERT INTO {_quote(model._meta.db_table)} ({', '.join(_quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def update(model, pk, /, **values) -> None:
    """Set these field values on the ``model`` row ``pk``."""
    fields = [model._meta.get_field(name) for name in values]
    params = [
        f.get_db_prep_save(v, connection) for f, v in zip(fields, values.values(), strict=True)
    ]
    assignments = ", ".join(f"{_quote(f.column)} = %s" for f in fields)
    sql = f"UPDATE {_quote(model._meta.db_table)} SET {assignments} WHERE {_quote(model._meta.pk.column)} = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])


def update_rows(model, rows: list, fields: list[str]) -> None:
    """Write ``fields`` of these ``model`` instances to their rows, one statement for all."""
    if not rows:
        return
    meta = model._meta
    targets = [meta.get_field(name) for name in fields]
    sql = (
        f"UPDATE {_quote(meta.db_table)} SET {', '.join(f'{_quote(f.column)} = %s' for f in targets)} "
        f"WHERE {_quote(meta.pk.column)} = %s"
    )
    params = [
        [*(f.get_db_prep_save(getattr(row, f.attname), connection) for f in targets), row.pk]
        for row in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def count(model, field: str, value) -> int:
    """How many ``model`` rows hold ``value`` in ``field``."""
    meta = model._meta
    sql = f"SELECT COUNT(*) FROM {_quote(meta.db_table)} WHERE {_quote(meta.get_field(field).column)} = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [value])
        return cursor.fetchone()[0]
