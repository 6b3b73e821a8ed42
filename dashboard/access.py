"""Who may see and do what in a project: strangers get 404, viewers may look, members may act."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from memory.models import WRITE_ROLES, Project, Role


@dataclass(frozen=True)
class Access:
    project: Project
    role: str

    @property
    def can_write(self) -> bool:
        return self.role in WRITE_ROLES

    @property
    def is_owner(self) -> bool:
        return self.role == Role.OWNER

    def require_write(self) -> Access:
        if not self.can_write:
            raise PermissionDenied("viewers can look but not act")
        return self

    def require_owner(self) -> Access:
        if not self.is_owner:
            raise PermissionDenied("only the project's owners can do this")
        return self


def access_to(user, project: Project) -> Access:
    return Access(project, project.role_of(user))


def project_access(user, pk: int) -> Access:
    """The project and the user's role in it; 404 for anyone who is not a member."""
    project = get_object_or_404(Project.objects.for_user(user), pk=pk)
    return access_to(user, project)
