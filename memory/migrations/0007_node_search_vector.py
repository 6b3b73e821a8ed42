"""PostgreSQL: the weighted search vector that recall ranks by, stored with each node.

A new session's preamble ranks the project's nodes against its first message. Ranking over the
expression index of 0005 computed every matching node's vector again for ``ts_rank``; a stored
generated column is computed once, when the node is written, and its GIN index serves the match.
The column is the database's own: Django never reads or writes it. SQLite keeps its FTS5 table.
"""

from django.db import migrations

VECTOR = (
    "setweight(to_tsvector('english'::regconfig, COALESCE(label, '')), 'A') || "
    "setweight(to_tsvector('english'::regconfig, "
    "COALESCE(evidence_quote, '') || ' ' || COALESCE(reason, '')), 'B')"
)
OLD_INDEX = (
    "CREATE INDEX node_search ON memory_node USING GIN ("
    "to_tsvector('english'::regconfig, COALESCE(label, '') || ' ' || COALESCE(reason, '') "
    "|| ' ' || COALESCE(evidence_quote, '')))"
)


def store_vector(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"ALTER TABLE memory_node ADD COLUMN search_vector tsvector "
            f"GENERATED ALWAYS AS ({VECTOR}) STORED"
        )
        schema_editor.execute("DROP INDEX IF EXISTS node_search")
        schema_editor.execute(
            "CREATE INDEX node_search ON memory_node USING GIN (search_vector)"
        )


def compute_vector(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS node_search")
        schema_editor.execute("ALTER TABLE memory_node DROP COLUMN search_vector")
        schema_editor.execute(OLD_INDEX)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0006_session_external_id_index"),
    ]

    operations = [migrations.RunPython(store_vector, compute_vector)]
