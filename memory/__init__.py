"""Session memory: projects, sessions, transcripts and their typed graphs, stored in the database."""
