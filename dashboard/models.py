"""The dashboard's own data: the price table that turns saved tokens into saved money."""

from __future__ import annotations

from fnmatch import fnmatchcase

from django.db import models
from django.db.models import Q


class ModelPrice(models.Model):
    """What a model costs, per million tokens; the most specific matching pattern wins."""

    pattern = models.CharField(
        max_length=200, unique=True, help_text="A model name or a pattern, e.g. gpt-4o* or claude-*"
    )
    input_per_million = models.DecimalField(
        max_digits=10, decimal_places=4, help_text="Price of one million prompt tokens, in USD."
    )
    output_per_million = models.DecimalField(
        max_digits=10, decimal_places=4, help_text="Price of one million completion tokens, in USD."
    )

    class Meta:
        ordering = ["pattern"]
        constraints = [
            models.CheckConstraint(
                condition=Q(input_per_million__gte=0) & Q(output_per_million__gte=0),
                name="model_price_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return self.pattern

    def matches(self, model: str) -> bool:
        return fnmatchcase(model.lower(), self.pattern.lower())

    @property
    def specificity(self) -> tuple[int, int]:
        """Exact names before patterns, then longer patterns before shorter ones."""
        wild = any(ch in self.pattern for ch in "*?[")
        return (0 if wild else 1, len(self.pattern))
