"""Tests of the provider adapters: pure protocol translation, plus round trips via the loopback."""
