"""The mail rig's SMTP server: aiosmtpd that checks recipients, takes injected faults and
hands each accepted mail to Dovecot over LMTP."""

from __future__ import annotations

import asyncio
import base64
import binascii
import smtplib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from tests.oauth_server import introspect

if TYPE_CHECKING:
    from tests.mailrig import MailRig


class FrontEnd:
    """The SMTP server: checks recipients, takes injected faults, delivers over LMTP."""

    def __init__(self, rig: MailRig) -> None:
        self.rig = rig
        self.controller = Controller(
            self,
            hostname=rig.host,
            port=rig.smtp_port,
            authenticator=self._authenticate,
            auth_require_tls=False,
            auth_required=False,
            enable_SMTPUTF8=True,
            ident="pbem mailrig",
            auth_exclude_mechanism=[] if rig.oauth_url else ["XOAUTH2"],
        )

    def start(self) -> None:
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: object
    ) -> AuthResult:
        ok = (
            isinstance(auth_data, LoginPassword)
            and self.rig.users.get(auth_data.login.decode()) == auth_data.password.decode()
        )
        if ok:
            return AuthResult(success=True, auth_data=auth_data)
        # handled=False makes aiosmtpd send "535 ... credentials invalid"; the default sends nothing.
        return AuthResult(success=False, handled=False)

    async def auth_XOAUTH2(self, server: SMTP, args: list[str]) -> AuthResult:  # noqa: N802 - aiosmtpd's name
        """SASL XOAUTH2: the bearer token is checked at the rig's introspection endpoint, as Dovecot does."""
        if len(args) > 1:
            try:
                blob = base64.b64decode(args[1], validate=True)
            except binascii.Error:
                return AuthResult(success=False, handled=False)
        else:
            answer = await server.challenge_auth("")
            if not isinstance(answer, bytes):
                return AuthResult(success=False, handled=True)  # aiosmtpd answered already
            blob = answer
        fields = dict(part.split("=", 1) for part in blob.decode(errors="replace").split("\x01") if "=" in part)
        user, bearer = fields.get("user", ""), fields.get("auth", "")
        if not bearer.startswith("Bearer ") or self.rig.oauth_url is None:
            return AuthResult(success=False, handled=False)
        loop = asyncio.get_running_loop()
        owner = await loop.run_in_executor(None, introspect, self.rig.oauth_url, bearer[len("Bearer ") :])
        if owner is not None and owner == user.split("@")[0].lower():
            return AuthResult(success=True, auth_data=LoginPassword(user.encode(), b""))
        return AuthResult(success=False, handled=False)

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        fault = self.rig._take_fault("MAIL")
        if fault:
            return fault
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        fault = self.rig._take_fault("RCPT")
        if fault:
            return fault
        user = address.rpartition("@")[0].split("+", 1)[0].lower()
        if user not in self.rig.users:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        fault = self.rig._take_fault("DATA")
        if fault:
            return fault
        content = envelope.original_content or b""
        loop = asyncio.get_running_loop()
        try:
            refused = await loop.run_in_executor(None, self._lmtp, envelope.mail_from or "", envelope.rcpt_tos, content)
        except smtplib.SMTPRecipientsRefused as exc:
            code, text = next(iter(exc.recipients.values()))
            return f"451 4.3.0 Local delivery refused ({code} {text.decode(errors='replace')})"
        except (OSError, smtplib.SMTPException) as exc:
            return f"451 4.3.0 Local delivery failed ({exc})"
        if refused:
            return f"451 4.3.0 Local delivery refused for {', '.join(refused)}"
        return "250 2.0.0 OK delivered"

    def _lmtp(self, sender: str, recipients: Iterable[str], content: bytes) -> dict:
        with smtplib.LMTP(self.rig.host, self.rig.lmtp_port, timeout=30) as lmtp:
            return lmtp.sendmail(sender, list(recipients), content)
