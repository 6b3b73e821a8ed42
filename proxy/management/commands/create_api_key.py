"""`manage.py create_api_key --user USERNAME --project SLUG_OR_NAME`: a new key, printed once."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from memory.models import Project
from proxy.keys import create_key


class Command(BaseCommand):
    help = "Create an API key for a user in a project; the key is printed once and never stored."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="username")
        parser.add_argument("--project", required=True, help="project slug or name")
        parser.add_argument("--name", default="cli", help="a name to recognise the key by")

    def handle(self, *args, user: str, project: str, name: str, **options):
        owner = get_user_model().objects.filter(username=user).first()
        if owner is None:
            raise CommandError(
                f"no user {user!r}: create one with `python manage.py createsuperuser`"
            )
        found = Project.objects.filter(Q(slug=project) | Q(name=project)).first()
        if found is None:
            raise CommandError(
                f"no project {project!r}: create one with `python manage.py create_project`"
            )
        if found.role_of(owner) is None:
            raise CommandError(
                f"{user} is not a member of {found.name}; add them in the admin first"
            )
        key, plaintext = create_key(owner, found, name)
        self.stdout.write(
            self.style.SUCCESS(f"Created key {key.name!r} for {user} in {found.name}:")
        )
        self.stdout.write(plaintext)
        self.stdout.write("Store it now: it is shown only once.")
