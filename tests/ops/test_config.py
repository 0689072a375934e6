"""Settings: every rule of the file, and the one message a wrong setting gets."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.core import config
from pbem.core.config import ConfigError, Settings, load, parse

IMAP_SMTP = """
[imap]
host = "imap.example.org"
username = "games@example.org"
password_env = "PBEM_TEST_IMAP_PASSWORD"
[smtp]
host = "smtp.example.org"
username = "games@example.org"
password_env = "PBEM_TEST_SMTP_PASSWORD"
"""


def _load(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "pbem.toml"
    path.write_text(text, encoding="utf-8")
    return load(path)


@pytest.fixture(autouse=True)
def _passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_TEST_IMAP_PASSWORD", "imap-secret")
    monkeypatch.setenv("PBEM_TEST_SMTP_PASSWORD", "smtp-secret")


# (what the [server] table says, the words the one-line message must hold)
WRONG_SERVER = [
    ("default_days = 99", ["default_days = 99", "whole days from 1 to 30"]),
    ("default_days = 0", ["default_days = 0", "whole days from 1 to 30"]),
    ('default_days = "7"', ['default_days = "7"', "whole days from 1 to 30"]),
    ("default_days = 2.5", ["default_days = 2.5", "whole days"]),
    ('reminders = "48"', ['reminders = "48"', "a list of hours"]),
    ("reminders = [48, -1]", ["reminders = [48, -1]", "each above 0"]),
    ('reminders = ["48"]', ['reminders = ["48"]', "a list of hours"]),
    ('outbox_interval = "fast"', ['outbox_interval = "fast"', "seconds above 0"]),
    ('outbox_interval = "2.0"', ['outbox_interval = "2.0"', "seconds above 0"]),
    ("outbox_interval = 0", ["outbox_interval = 0", "seconds above 0"]),
    ("clock_interval = -1.0", ["clock_interval = -1.0", "seconds above 0"]),
    ("outbox_lease = 0.0", ["outbox_lease = 0.0", "seconds above 0"]),
    ("retry_base = nan", ["retry_base = nan", "seconds above 0"]),
    ("max_error_replies_per_day = -3", ["max_error_replies_per_day = -3", "0 or more"]),
    ("max_attempts = 0", ["max_attempts = 0", "from 1 to 100"]),
    ("smtp_connections = true", ["smtp_connections = true", "from 1 to 100"]),
    ("max_message_bytes = 10", ["max_message_bytes = 10", "at least 1024"]),
    ("vacation_days_per_year = 400", ["vacation_days_per_year = 400", "from 0 to 366"]),
    ("retention_days = 0", ["retention_days = 0", "1 or more"]),
    ("metrics_port = 70000", ["metrics_port = 70000", "from 1 to 65535"]),
    ("sandbox_port = 0", ["sandbox_port = 0", "from 1 to 65535"]),
    ('templates_dir = "/no/such/folder"', ['templates_dir = "/no/such/folder"', "an existing directory"]),
    ('address = "games"', ['address = "games"', "an email address"]),
    ('name = ""', ['name = ""', "a display name"]),
    ("home = 3", ["home = 3", "a directory path"]),
    ("colour = 1", ["colour is not a setting", "default_days"]),
    ('imap = "x"', ["[server] imap is not a setting", "[imap] table"]),
]


@pytest.mark.parametrize(("line", "words"), WRONG_SERVER, ids=[line for line, _ in WRONG_SERVER])
def test_a_wrong_server_setting_is_named_with_its_value_and_what_is_allowed(
    tmp_path: Path, line: str, words: list[str]
) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, f"[server]\n{line}\n")
    message = str(caught.value)
    assert str(tmp_path / "pbem.toml") in message
    assert "[server]" in message
    for word in words:
        assert word in message


WRONG_MAIL = [
    ('security = "ssl"', "imap", ['security = "ssl"', '"tls", "starttls" or "none"']),
    ("port = 0", "imap", ["port = 0", "from 1 to 65535"]),
    ('port = "993"', "imap", ['port = "993"', "from 1 to 65535"]),
    ('idle = "yes"', "imap", ['idle = "yes"', "true or false"]),
    ("poll_interval = 0", "imap", ["poll_interval = 0", "seconds above 0"]),
    ('security = "starttls"', "imap", ["[imap]", "993"]),
    ('processed_folder = "INBOX"', "imap", ["[imap]", "processed folder"]),
    ('password = "inline"', "imap", ["[imap] password must not be written inline", "password_env"]),
    ('flavour = "x"', "imap", ["[imap] flavour is not a setting", "poll_interval"]),
    ('security = "starttls2"', "smtp", ['security = "starttls2"', '"starttls", "tls" or "none"']),
    ("timeout = -5", "smtp", ["timeout = -5", "seconds above 0"]),
]


@pytest.mark.parametrize(("line", "table", "words"), WRONG_MAIL, ids=[f"{t}:{line}" for line, t, _ in WRONG_MAIL])
def test_a_wrong_mail_server_setting_is_named(tmp_path: Path, line: str, table: str, words: list[str]) -> None:
    text = IMAP_SMTP.replace(f"[{table}]\n", f"[{table}]\n{line}\n")
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    for word in words:
        assert word in str(caught.value)


WRONG_FILE = [
    ("default_days = 3\n", ["default_days", "under [server]"]),
    ("[servre]\naddress = 'a@b.c'\n", ["servre", "[server], [imap], [smtp]"]),
    (IMAP_SMTP.split("[smtp]")[0], ["both [imap] and [smtp]"]),
    (IMAP_SMTP.replace('password_env = "PBEM_TEST_IMAP_PASSWORD"\n', ""), ["[imap]", "password_env"]),
    (IMAP_SMTP.replace("PBEM_TEST_IMAP_PASSWORD", "PBEM_TEST_UNSET_VARIABLE"), ["PBEM_TEST_UNSET_VARIABLE"]),
    (IMAP_SMTP.replace('password_env = "PBEM_TEST_IMAP_PASSWORD"', 'password_file = "/no/such/file"'),
     ["password_file", "/no/such/file", "cannot read"]),
    (IMAP_SMTP.replace('username = "games@example.org"\npassword_env = "PBEM_TEST_SMTP_PASSWORD"\n', 'username = "u"\n'),
     ["[smtp]", "username and password"]),
    ("[server\n", ["cannot read"]),
    ("server = 3\n", ["[server] must be a table"]),
]


@pytest.mark.parametrize(("text", "words"), WRONG_FILE)
def test_a_wrong_file_says_what_is_wrong(tmp_path: Path, text: str, words: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    for word in words:
        assert word in str(caught.value)


def test_the_example_configurations_load_with_secrets_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "imap-secret")
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", "smtp-secret")
    root = Path(__file__).resolve().parents[2] / "deploy"
    for name in ("pbem.toml", "pbem-postgres.toml"):
        settings = load(root / name)
        assert settings.address == "games@example.org"
        assert settings.imap is not None and settings.imap.password == "imap-secret"
        assert settings.smtp is not None and settings.smtp.password == "smtp-secret"
        assert not settings.sandbox


def test_good_values_are_read_as_their_types(tmp_path: Path) -> None:
    secret = tmp_path / "smtp-password"
    secret.write_text("from-a-file\n", encoding="utf-8")
    settings = _load(
        tmp_path,
        f"""[server]
address = "games@example.org"
home = "{tmp_path}"
outbox_interval = 2
reminders = [72, 1.5]
retention_days = 30
metrics_port = 9108
templates_dir = "{tmp_path}"
"""
        + IMAP_SMTP.replace('password_env = "PBEM_TEST_SMTP_PASSWORD"', f'password_file = "{secret}"'),
    )
    assert settings.outbox_interval == 2.0 and isinstance(settings.outbox_interval, float)
    assert settings.reminders == (72.0, 1.5)
    assert settings.home == tmp_path and settings.templates_dir == tmp_path
    assert (settings.retention_days, settings.metrics_port) == (30, 9108)
    assert settings.smtp is not None and settings.smtp.password == "from-a-file"


def test_defaults_are_the_sandbox_and_the_new_fields() -> None:
    settings = load(None)
    assert settings.sandbox and settings.address == config.SANDBOX_ADDRESS
    assert (settings.retention_days, settings.metrics_port, settings.templates_dir) == (90, None, None)
    assert (settings.default_days, settings.reminders, settings.max_error_replies_per_day) == (7, (48.0, 24.0), 10)


def test_settings_built_in_code_are_checked_too_and_replace_still_works() -> None:
    with pytest.raises(ValueError, match="default_days"):
        Settings(default_days=99)
    changed = dataclasses.replace(Settings(), default_days=3, max_error_replies_per_day=10**9)
    assert changed.default_days == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.default_days = 4  # type: ignore[misc]


def test_effective_settings_mask_every_secret(tmp_path: Path) -> None:
    settings = parse(
        {
            "server": {"database_url": "postgresql://pbem:hunter2@db.example.org/pbem"},
            **__import__("tomllib").loads(IMAP_SMTP),
        }
    )
    text = config.render(config.effective(settings))
    assert "hunter2" not in text and "imap-secret" not in text and "smtp-secret" not in text
    assert "postgresql://pbem:***@db.example.org/pbem" in text
    assert text.count('password = "********"') == 2
    assert "[server]" in text and "[imap]" in text and "[smtp]" in text


def _pbem(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, **(env_extra or {})}
    env.pop("PBEM_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli.main", *args], capture_output=True, text=True, env=env, timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "command",
    [["serve"], ["admin", "games"], ["admin", "migrate"], ["sandbox", "inbox", "a@b.c"]],
    ids=lambda c: " ".join(c),
)
def test_a_wrong_setting_stops_every_command_with_one_message(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(f'[server]\nhome = "{tmp_path}"\ndefault_days = 99\n', encoding="utf-8")
    done = _pbem("-c", str(path), *command)
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr
    assert "default_days = 99" in done.stderr and "whole days from 1 to 30" in done.stderr
    assert not (tmp_path / "pbem.sqlite3").exists()  # nothing was started


def test_config_check_prints_masked_settings_or_the_problem(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text(f'[server]\nhome = "{tmp_path}"\n' + IMAP_SMTP, encoding="utf-8")
    done = _pbem("config", "check", "-c", str(good))
    assert done.returncode == 0, done
    assert "imap-secret" not in done.stdout and 'password = "********"' in done.stdout
    assert f'home = "{tmp_path}"' in done.stdout and "retention_days = 90" in done.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('[server]\nreminders = "48"\n', encoding="utf-8")
    done = _pbem("-c", str(good), "config", "check", "-c", str(bad))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert 'reminders = "48"' in done.stderr
    sandbox = _pbem("config", "check", env_extra={"PBEM_HOME": str(tmp_path)})
    assert sandbox.returncode == 0 and 'address = "pbem@sandbox.test"' in sandbox.stdout


GMAIL = """
[imap]
host = "imap.gmail.com"
username = "games@example.org"
auth = "oauth2"
oauth2_provider = "google"
client_id = "1234.apps.googleusercontent.com"
client_secret_env = "PBEM_TEST_CLIENT_SECRET"
refresh_token_env = "PBEM_TEST_REFRESH_TOKEN"
[smtp]
host = "smtp.gmail.com"
username = "games@example.org"
auth = "oauth2"
oauth2_provider = "google"
client_id = "1234.apps.googleusercontent.com"
client_secret_env = "PBEM_TEST_CLIENT_SECRET"
refresh_token_env = "PBEM_TEST_REFRESH_TOKEN"
"""


@pytest.fixture
def _oauth_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_TEST_CLIENT_SECRET", "client-secret-value")
    monkeypatch.setenv("PBEM_TEST_REFRESH_TOKEN", "refresh-token-value")


@pytest.mark.usefixtures("_oauth_secrets")
def test_oauth2_settings_build_one_token_source_for_imap_and_smtp(tmp_path: Path) -> None:
    settings = _load(tmp_path, GMAIL)
    assert settings.imap is not None and settings.smtp is not None
    source = settings.imap.oauth2
    assert source is not None and settings.smtp.oauth2 is source  # one token, one refresh, for both
    assert (source.token_url, source.client_secret, source.refresh_token, source.scope) == (
        "https://oauth2.googleapis.com/token", "client-secret-value", "refresh-token-value", None
    )
    assert settings.imap.password is None
    microsoft = _load(tmp_path, GMAIL.replace('"google"', '"microsoft"'))
    assert microsoft.imap is not None and microsoft.imap.oauth2 is not None
    assert microsoft.imap.oauth2.token_url == "https://login.microsoftonline.com/common/oauth2/v2.0/token"
    assert "offline_access" in (microsoft.imap.oauth2.scope or "")
    command = _load(tmp_path, IMAP_SMTP.replace('password_env = "PBEM_TEST_IMAP_PASSWORD"',
                                                'auth = "oauth2"\ntoken_command = "secret-tool lookup pbem imap"'))
    assert command.imap is not None and command.imap.oauth2 is not None
    assert command.imap.oauth2.command == "secret-tool lookup pbem imap" and command.smtp is not None
    assert command.smtp.oauth2 is None and command.smtp.password == "smtp-secret"


WRONG_OAUTH = [
    ('refresh_token_env = "PBEM_TEST_REFRESH_TOKEN"', 'refresh_token = "inline"',
     ["refresh_token must not be written inline", "refresh_token_env"]),
    ('client_secret_env = "PBEM_TEST_CLIENT_SECRET"', 'client_secret = "inline"',
     ["client_secret must not be written inline"]),
    ('auth = "oauth2"', 'auth = "oauth"', ['auth = "oauth"', '"password" or "oauth2"']),
    ('auth = "oauth2"\n', "", ["only with auth = \"oauth2\""]),
    ('oauth2_provider = "google"', 'oauth2_provider = "yahoo"', ['"google", "microsoft" or "generic"']),
    ('oauth2_provider = "google"', 'oauth2_provider = "generic"', ['"generic" needs token_url']),
    ('oauth2_provider = "google"\n', "", ["needs token_command, or oauth2_provider"]),
    ('client_id = "1234.apps.googleusercontent.com"\n', "", ["needs client_id"]),
    ('refresh_token_env = "PBEM_TEST_REFRESH_TOKEN"\n', "", ["needs refresh_token_env or refresh_token_file"]),
    ('refresh_token_env = "PBEM_TEST_REFRESH_TOKEN"', 'refresh_token_env = "PBEM_TEST_UNSET_VARIABLE"',
     ["refresh_token_env", "PBEM_TEST_UNSET_VARIABLE"]),
    ('auth = "oauth2"', 'auth = "oauth2"\npassword_env = "PBEM_TEST_IMAP_PASSWORD"', ["takes no password"]),
    ('auth = "oauth2"', 'auth = "oauth2"\ntoken_command = "helper"', ["token_command comes alone"]),
    ('oauth2_provider = "google"', 'oauth2_provider = "google"\ntoken_url = "ftp://x"', ["token_url", "https://"]),
    ('oauth2_provider = "google"', 'oauth2_provider = "google"\ntoken_url = "http://tokens.example.org/t"',
     ["https:// URL"]),
]


@pytest.mark.usefixtures("_oauth_secrets")
@pytest.mark.parametrize(("old", "new", "words"), WRONG_OAUTH, ids=[new or f"no {old}" for old, new, _ in WRONG_OAUTH])
def test_a_wrong_oauth2_setting_is_named(tmp_path: Path, old: str, new: str, words: list[str]) -> None:
    imap, smtp = GMAIL.split("[smtp]")
    assert old in imap
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, imap.replace(old, new, 1) + "[smtp]" + smtp)
    message = str(caught.value)
    assert "[imap]" in message
    assert "client-secret-value" not in message and "refresh-token-value" not in message
    for word in words:
        assert word in message


@pytest.mark.usefixtures("_oauth_secrets")
def test_config_check_shows_oauth2_settings_with_the_secrets_masked(tmp_path: Path) -> None:
    text = config.render(config.effective(_load(tmp_path, GMAIL)))
    assert "client-secret-value" not in text and "refresh-token-value" not in text
    assert text.count('auth = "oauth2"') == 2 and text.count('oauth2_provider = "google"') == 2
    assert text.count('refresh_token = "********"') == 2 and text.count('client_secret = "********"') == 2
    assert 'token_url = "https://oauth2.googleapis.com/token"' in text
    plain = config.render(config.effective(_load(tmp_path, IMAP_SMTP)))
    assert plain.count('auth = "password"') == 2 and "refresh_token" not in plain


@pytest.mark.parametrize("example", ["# A command", "# Or a refresh token, Gmail", "# Microsoft 365"])
def test_the_commented_oauth2_examples_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example: str) -> None:
    """Each commented OAuth 2.0 block of deploy/pbem.toml, uncommented in both tables, is a valid setting."""
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", "smtp-secret")
    text = (Path(__file__).resolve().parents[2] / "deploy" / "pbem.toml").read_text(encoding="utf-8")
    lines = text.split(example, 1)[1].splitlines()[1:]
    block = []
    for line in lines:
        if not line.startswith("#   "):
            break
        block.append(line[4:].replace("/etc/pbem/", f"{tmp_path}/"))
    for name in ("oauth-client-secret", "oauth-refresh-token"):
        (tmp_path / name).write_text("secret-value\n", encoding="utf-8")
    imap = text.split("\n[imap]\n", 1)[1].split("\n[smtp]\n", 1)[0].replace('password_env = "PBEM_IMAP_PASSWORD"', "\n".join(block))
    settings = parse(__import__("tomllib").loads("[imap]\n" + imap + "\n" + IMAP_SMTP[IMAP_SMTP.index("[smtp]"):]))
    assert settings.imap is not None and settings.imap.oauth2 is not None
    assert "secret-value" not in config.render(config.effective(settings))


@pytest.mark.parametrize("command", [["serve"], ["config", "check"]], ids=" ".join)
def test_a_wrong_dkim_key_file_stops_serve_and_config_check(tmp_path: Path, command: list[str]) -> None:
    key = tmp_path / "dkim.pem"
    key.write_text("ssh-rsa AAAA not a private key\n", encoding="utf-8")
    path = tmp_path / "pbem.toml"
    path.write_text(f'[server]\nhome = "{tmp_path}"\ndkim_selector = "pbem1"\ndkim_key_file = "{key}"\n', encoding="utf-8")
    done = _pbem("-c", str(path), *command)
    assert done.returncode == 1, done
    lines = [line for line in done.stderr.splitlines() if line.strip() and "pbem starting" not in line]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f'[server] dkim_key_file = "{key}"' in lines[0] and "no unencrypted RSA or Ed25519 private key" in lines[0]
    assert not (tmp_path / "pbem.sqlite3").exists()
