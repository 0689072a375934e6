from tests.service.conftest import server  # noqa: F401  (the same Service over a SQLite file)
