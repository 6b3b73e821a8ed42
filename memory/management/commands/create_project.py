"""`manage.py create_project NAME --owner USERNAME`: a new project with its owner."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memory.projects import create_project


class Command(BaseCommand):
    help = "Create a project owned by an existing user."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--owner", required=True, help="username of the owner")

    def handle(self, *args, name: str, owner: str, **options):
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(
                f"no user {owner!r}: create one first with `python manage.py createsuperuser`"
            )
        try:
            project = create_project(name, user)
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Created project {project.name!r} (slug {project.slug}) owned by {owner}."
            )
        )
