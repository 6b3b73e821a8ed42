"""The team dashboard: HTMX pages over the project's memory."""
