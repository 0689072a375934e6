"""The whole `pbem admin` group: the group and its shared parts are `pbem.admin`, its commands
live in the `admin_*` modules, which add themselves to it when imported here."""

from pbem import admin_changes, admin_games, admin_mail, admin_ops  # noqa: F401  (their commands)
from pbem.admin import admin

__all__ = ["admin"]
