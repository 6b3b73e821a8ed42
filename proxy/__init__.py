"""The OpenAI-compatible proxy: authentication, upstream adapters and budget-aware compaction."""
