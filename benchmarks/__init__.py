"""Extraction benchmark: corpus loading, protocol scoring, baselines, reports and the CLI."""
