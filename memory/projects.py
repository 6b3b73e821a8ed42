"""Creating projects and managing who belongs to them."""

from __future__ import annotations

from django.db import transaction
from django.utils.text import slugify

from memory.models import Membership, Project, Role


def unique_slug(name: str) -> str:
    base = slugify(name)[:180] or "project"
    slug, n = base, 1
    while Project.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def create_project(name: str, owner) -> Project:
    """A new project whose creator is its owner."""
    name = name.strip()
    if not name:
        raise ValueError("a project needs a name")
    with transaction.atomic():
        project = Project.objects.create(name=name, slug=unique_slug(name))
        Membership.objects.create(project=project, user=owner, role=Role.OWNER)
    return project


def set_member(project: Project, user, role: str) -> Membership:
    """Add ``user`` to the project with ``role``, or change the role they have."""
    if role not in Role.values:
        raise ValueError(f"role must be one of {', '.join(Role.values)}")
    membership, _ = Membership.objects.update_or_create(
        project=project, user=user, defaults={"role": role}
    )
    return membership
