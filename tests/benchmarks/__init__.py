"""Tests of the extraction benchmark package."""
