from tests.server import (
    any_server,  # noqa: F401,E402  (the same over SQLite, then PostgreSQL)
    server,  # noqa: F401  (the same Service over a SQLite file)
)
