"""`manage.py load_demo`: migrate, create the first user (printing its password), load the demo project."""

import secrets

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from memory.demo import load_demo


class Command(BaseCommand):
    help = "Set up a fresh installation: migrate, create a first user and load the demo project."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username: str, **options):
        call_command("migrate", verbosity=0)
        users = get_user_model().objects
        user = users.filter(username=username).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            user = users.create_superuser(username=username, email="", password=password)
            self.stdout.write(
                self.style.SUCCESS(f"Created user {username!r} with password {password}")
            )
        else:
            self.stdout.write(
                f"User {username!r} already exists (new password: "
                f"`python manage.py changepassword {username}`)."
            )
        project = load_demo(user, progress=lambda line: self.stdout.write(f"  {line}"))
        self.stdout.write(self.style.SUCCESS(f"Demo project {project.name!r} is ready."))
