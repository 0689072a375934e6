"""Dovecot for the mail rig: its private configuration (2.3 and 2.4) and its processes.

The rig runs Dovecot as root in CI and as the user elsewhere; what differs lives here, so
`tests.mailrig` keeps only the rig's life cycle and mailbox reading.
"""

from __future__ import annotations

import contextlib
import ctypes
import grp
import os
import pwd
import signal
import socket
import time
from pathlib import Path

HOST = "127.0.0.1"


class RigUnavailable(RuntimeError):
    """This machine cannot run the rig (Dovecot missing, unusable temp directory)."""


def dovecot_config(
    version: str,
    data: Path,
    base_dir: Path,
    imap_port: int,
    lmtp_port: int,
    mail_user: str,
    mail_group: str,
    oauth_url: str | None = None,
) -> str:
    """The rig's dovecot.conf; with `oauth_url`, XOAUTH2 and OAUTHBEARER logins are checked by
    Dovecot's oauth2 passdb against that server's introspection endpoint (`tests.oauth_server`),
    beside the password users."""
    if oauth_url is not None and not version.startswith("2.3"):
        raise RigUnavailable(f"the rig's oauth2 passdb is written for Dovecot 2.3, not {version}")
    if version.startswith("2.3"):
        text = f"""\
protocols = imap lmtp
listen = {HOST}
base_dir = {base_dir}
state_dir = {data}/state
instance_name = pbem-mailrig-{imap_port}
log_path = {data}/log/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_username_format = %Ln
auth_failure_delay = 0
recipient_delimiter = +
mail_location = maildir:~/Maildir
mail_fsync = always
lmtp_add_received_header = no
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {data}/etc/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user} gid={mail_group} home={data}/mail/%n
}}
service imap-login {{
  inet_listener imap {{
    address = {HOST}
    port = {imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = {HOST}
    port = {lmtp_port}
  }}
}}
"""
    elif version.startswith("2.4"):
        text = f"""\
dovecot_config_version = 2.4.0
dovecot_storage_version = 2.4.0
protocols = imap lmtp
listen = {HOST}
base_dir = {base_dir}
state_dir = {data}/state
instance_name = pbem-mailrig-{imap_port}
log_path = {data}/log/dovecot.log
ssl = no
auth_allow_cleartext = yes
auth_mechanisms = plain login
auth_username_format = %{{user | username | lower}}
auth_failure_delay = 0
recipient_delimiter = +
mail_driver = maildir
mail_path = ~/Maildir
mail_fsync = always
lmtp_add_received_header = no
passdb passwd-file {{
  passwd_file_path = {data}/etc/passwd
}}
userdb static {{
  fields {{
    uid = {mail_user}
    gid = {mail_group}
    home = {data}/mail/%{{user}}
  }}
}}
service imap-login {{
  inet_listener imap {{
    listen = {HOST}
    port = {imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    listen = {HOST}
    port = {lmtp_port}
  }}
}}
"""
    else:
        raise RigUnavailable(f"unsupported Dovecot version {version} (the rig knows 2.3 and 2.4)")
    if oauth_url is not None:
        text = text.replace("auth_mechanisms = plain login\n", "auth_mechanisms = plain login xoauth2 oauthbearer\n")
        # The passwd-file passdb stays unfiltered: LMTP's user lookups go through it (a passdb
        # limited to some mechanisms is skipped there), and for XOAUTH2 it simply does not match.
        (data / "etc" / "oauth2.conf.ext").write_text(
            f"introspection_url = {oauth_url}/introspect\n"
            "introspection_mode = post\n"
            "force_introspection = yes\n"
            "username_attribute = username\n"
            "active_attribute = active\n"
            "active_value = true\n"
            "timeout_msecs = 10000\n"
        )
        text += (
            "passdb {\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n"
            f"  args = {data}/etc/oauth2.conf.ext\n}}\n"
        )
    anvil = ["  chroot ="] if os.geteuid() != 0 else []
    if version.startswith("2.3"):
        # No growing delay for logins from 127.0.0.1 after a test's deliberate wrong password:
        # the auth process finds no penalty socket under its usual name and keeps no penalties.
        anvil.append("  unix_listener anvil-auth-penalty {\n    path = anvil-auth-penalty-off\n  }")
    if anvil:
        text += "service anvil {\n" + "\n".join(anvil) + "\n}\n"
    if os.geteuid() == 0:
        # Keep Dovecot's privilege separation; the auth process reads the passwd file as root.
        text += "service auth {\n  user = root\n}\n"
    else:
        me, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
        text += (
            f"default_internal_user = {me}\ndefault_internal_group = {group}\ndefault_login_user = {me}\n"
            "service imap-login {\n  chroot =\n}\n"
        )
    return text


def check_traversable(path: Path) -> None:
    """Dovecot's mail processes run as nobody: every parent needs the x bit for others."""
    for parent in path.parents:
        if not parent.stat().st_mode & 0o001:
            raise RigUnavailable(
                f"{parent} is not traversable by other users, so Dovecot's mail processes (nobody) "
                "cannot reach the mailboxes; point TMPDIR at a directory like the system temp dir"
            )


def die_with_parent() -> None:
    """In the child: ask Linux to stop Dovecot if the test process dies without cleaning up.

    Linux ties this to the thread that started Dovecot, so call start_imap() from a thread that
    lives as long as the rig (the main thread, as pytest fixtures do).
    """
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def stop_group(pgid: int) -> None:
    """TERM, then KILL, whatever is left in the process group that Dovecot's master led."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        deadline = time.monotonic() + grace
        try:
            os.killpg(pgid, sig)
            while time.monotonic() < deadline:
                time.sleep(0.02)
                os.killpg(pgid, 0)
        except ProcessLookupError:
            return


def banner(port: int, prefix: bytes) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=2) as sock:
            return sock.recv(512).startswith(prefix)
    except OSError:
        return False
