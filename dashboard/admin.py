"""Django admin for the model price table."""

from django.contrib import admin

from dashboard.models import ModelPrice


@admin.register(ModelPrice)
class ModelPriceAdmin(admin.ModelAdmin):
    list_display = ("pattern", "input_per_million", "output_per_million")
    list_editable = ("input_per_million", "output_per_million")
    search_fields = ("pattern",)
