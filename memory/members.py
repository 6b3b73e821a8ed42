"""Changing who belongs to a project without ever leaving it without an owner."""

from __future__ import annotations

from django.db import transaction

from memory.models import Membership, Project, Role
from memory.projects import set_member


class MembershipError(ValueError):
    """The change would leave the project without an owner, or names an unknown role."""


def _last_owner(membership: Membership) -> bool:
    owners = Membership.objects.select_for_update().filter(
        project_id=membership.project_id, role=Role.OWNER
    )
    return membership.role == Role.OWNER and owners.count() == 1


def change_role(membership: Membership, role: str) -> Membership:
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(pk=membership.pk)
        if role != Role.OWNER and _last_owner(membership):
            raise MembershipError("a project keeps at least one owner")
        try:
            return set_member(membership.project, membership.user, role)
        except ValueError as error:
            raise MembershipError(str(error)) from None


def remove_member(membership: Membership) -> None:
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(pk=membership.pk)
        if _last_owner(membership):
            raise MembershipError("a project keeps at least one owner")
        membership.delete()


def add_member(project: Project, user, role: str) -> Membership:
    if Membership.objects.filter(project=project, user=user).exists():
        raise MembershipError(f"{user.username} is already a member")
    try:
        return set_member(project, user, role)
    except ValueError as error:
        raise MembershipError(str(error)) from None
