"""Forms of the dashboard: every input a page accepts goes through one of these."""

from __future__ import annotations

import re

from django import forms
from django.contrib.auth import get_user_model

from memory.decisions import OUTCOMES
from memory.graph.types import NodeType, Status
from memory.models import WRITE_ROLES, Membership, Project, Role
from proxy.models import Upstream

_ENV_NAME = re.compile(r"^([A-Z_][A-Z0-9_]*)?$")


def _choices(enum: type, blank: str) -> list[tuple[str, str]]:
    return [("", blank)] + [(m.value, m.value.replace("_", " ")) for m in enum]


class ProjectCreateForm(forms.Form):
    name = forms.CharField(max_length=200, strip=True)


# Project memory is sent on every request of a new session: a few hundred tokens is its purpose.
MAX_MEMORY_BUDGET = 2000


class ProjectSettingsForm(forms.ModelForm):
    class Meta:
        model = Project
        fields = [
            "name", "mecw", "compaction_ratio", "redact_upstream",
            "requests_per_minute", "tokens_per_minute", "max_tool_rounds", "memory_budget",
        ]  # fmt: skip
        labels = {
            "mecw": "MECW (tokens)",
            "compaction_ratio": "Compaction threshold",
            "memory_budget": "Project memory (tokens)",
        }

    def clean_memory_budget(self) -> int:
        budget = self.cleaned_data["memory_budget"]
        if budget > MAX_MEMORY_BUDGET:
            raise forms.ValidationError(
                f"Give at most {MAX_MEMORY_BUDGET:,} tokens (the default is 400; 0 turns it off)."
            )
        return budget

    def clean_compaction_ratio(self) -> float:
        ratio = self.cleaned_data["compaction_ratio"]
        if not 0 < ratio <= 1:
            raise forms.ValidationError("Give a share of the MECW between 0 and 1, e.g. 0.85.")
        return ratio

    def clean_mecw(self) -> int:
        mecw = self.cleaned_data["mecw"]
        if mecw < 1:
            raise forms.ValidationError("The MECW must be at least one token.")
        return mecw


class UpstreamForm(forms.ModelForm):
    base_url = forms.URLField(
        assume_scheme="https",
        help_text="e.g. https://api.deepseek.com/v1 or http://127.0.0.1:11434/v1",
    )

    class Meta:
        model = Upstream
        fields = ["name", "kind", "base_url", "api_key_env", "model_patterns", "position"]

    def __init__(self, *args, project: Project, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.project = project

    def clean_api_key_env(self) -> str:
        name = self.cleaned_data["api_key_env"].strip()
        if not _ENV_NAME.match(name):
            raise forms.ValidationError("An environment variable name, e.g. OPENAI_API_KEY.")
        return name


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.MEMBER)

    def __init__(self, *args, project: Project, **kwargs):
        super().__init__(*args, **kwargs)
        self.project = project

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(f"No user named {username!r}.")
        if Membership.objects.filter(project=self.project, user=user).exists():
            raise forms.ValidationError(f"{username} is already a member.")
        return user


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)


class NodeFilterForm(forms.Form):
    """The node table's filters and the time-travel control: all optional, all in the URL."""

    type = forms.ChoiceField(choices=_choices(NodeType, "all types"), required=False)
    status = forms.ChoiceField(choices=_choices(Status, "all statuses"), required=False)
    q = forms.CharField(required=False, max_length=200, label="Text")
    position = forms.IntegerField(required=False, min_value=0, label="At message")
    at = forms.DateTimeField(
        required=False, label="At time",
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )  # fmt: skip

    def clean(self):
        data = super().clean()
        if data.get("position") is not None and data.get("at") is not None:
            raise forms.ValidationError("Travel to a message or to a time, not both.")
        return data

    def filtered(self, nodes: list) -> list:
        data = self.cleaned_data if self.is_valid() else {}
        kind, status, text = data.get("type"), data.get("status"), (data.get("q") or "").casefold()
        return [
            n for n in nodes
            if (not kind or n.type_name == kind)
            and (not status or n.status_name == status)
            and (not text or text in n.label.casefold() or text in n.evidence.quote.casefold())
        ]  # fmt: skip


OUTCOME_LABELS = {
    "keep_both": "Keep both",
    "a_replaces_b": "A replaces B",
    "b_replaces_a": "B replaces A",
    "invalidate_a": "Invalidate A",
    "invalidate_b": "Invalidate B",
}


class ResolveForm(forms.Form):
    node_a = forms.IntegerField(widget=forms.HiddenInput)
    node_b = forms.IntegerField(widget=forms.HiddenInput)
    outcome = forms.ChoiceField(choices=[(o, OUTCOME_LABELS[o]) for o in OUTCOMES])
    reason = forms.CharField(
        required=False, max_length=1000, widget=forms.TextInput(attrs={"placeholder": "Why?"})
    )

    def clean(self):
        data = super().clean()
        if data.get("outcome") not in (None, "keep_both") and not data.get("reason", "").strip():
            self.add_error("reason", "Say why: a reason is required unless both are kept.")
        return data


class InvalidateForm(forms.Form):
    reason = forms.CharField(
        max_length=1000, widget=forms.TextInput(attrs={"placeholder": "Why is it wrong?"})
    )


class KeyCreateForm(forms.Form):
    project = forms.ModelChoiceField(queryset=Project.objects.none())
    name = forms.CharField(max_length=100, initial="laptop")
    holder = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), required=False, label="For",
        help_text="Owners may issue a key for a member, to hand over.",
    )  # fmt: skip

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["project"].queryset = Project.objects.filter(
            memberships__user=user, memberships__role__in=WRITE_ROLES
        )
        owned = Project.objects.filter(memberships__user=user, memberships__role=Role.OWNER)
        self.fields["holder"].queryset = (
            get_user_model().objects.filter(memberships__project__in=owned).distinct()
            .order_by("username")
        )  # fmt: skip
        self.fields["holder"].empty_label = "myself"
        if len(self.fields["project"].queryset) == 1:
            self.fields["project"].initial = self.fields["project"].queryset[0]

    def clean(self):
        data = super().clean()
        project, holder = data.get("project"), data.get("holder") or self.user
        if project is None:
            return data
        if holder != self.user and project.role_of(self.user) != Role.OWNER:
            self.add_error("holder", "Only the project's owners issue keys for others.")
        elif project.role_of(holder) not in WRITE_ROLES:
            self.add_error(
                "holder", f"{holder.username} is not a member who may write in {project}."
            )
        data["holder"] = holder
        return data
