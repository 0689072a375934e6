"""Test-only: one of our mails as HTML, and the replies seven mail clients make of it.

Our HTML mail shows the board as a table with coordinates, the instructions with example commands
in `<code>` (one of them alone on its line, as a player would copy it), and the `-- ` footer. Each
client quotes it its own way, in HTML (Gmail's `gmail_quote`, Outlook's `divRplyFwdMsg` after an
`<hr>`, Outlook desktop's bordered From/Sent block, Apple's and iOS's `<blockquote type="cite">`,
Thunderbird's `moz-cite-prefix`, GMX's `<div name="quote">` with its Sent-before-From header) and
in the text/plain part it makes from that HTML: the quoted mail flattened, table cells on lines of
their own or joined by tabs or spaces, `>`-quoted or (Outlook, GMX) pasted unquoted below a header
block.

`python -m tests.mail.message.html_replies` rewrites the fixtures under `fixtures/html/` from this file.
"""

from __future__ import annotations

import html as htmlmod
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

import lxml.html

from pbem.mail.message.reply import MARKER

FIXTURES = Path(__file__).parent / "fixtures" / "html"
TOKEN_ADDRESS = "game+7f3a9c2e41d0b8a5@pbem.example"
SUBJECT = "[pbem #42] Ataxx: your move, Alice (move 12)"
OUR_ID = "<pbem.42.12.alice@pbem.example>"
PLAYER = ("Alice Liddell", "alice@example.org")

# The position of the Ataxx fixtures: x Alice, o Bob, O Bob's last move, # blocked.
ROWS = [
    "x.....o",
    ".......",
    "..oo...",
    ".x.O...",
    "..o....",
    ".......",
    "o.....x",
]
_STYLE = "<style>td.last { outline: 2px solid #d33; } code { font-family: monospace; }</style>"
STONES = {"x": "\u25cf", "o": "\u25cb", "O": "\u25cb", "#": "\u25a0", ".": ""}  # ● ○ ○ ■


@dataclass(frozen=True)
class OurMail:
    """What our move mail says; `html()` and `text()` are its two alternatives."""

    subject: str = SUBJECT
    reply_to: str = TOKEN_ADDRESS
    message_id: str = OUR_ID
    marker: bool = True  # the reply marker on top (the HTML template may or may not carry it)
    text_part: str | None = None  # the text/plain alternative; None: made from the same facts
    html_part: str | None = None  # the HTML alternative as sent; None: the one written here
    rows: list[str] = field(default_factory=lambda: list(ROWS))

    def html(self) -> str:
        if self.html_part is not None:
            return self.html_part
        size = len(self.rows)
        letters = [chr(ord("a") + n) for n in range(len(self.rows[0]))]
        head = "<tr><th></th>" + "".join(f"<th>{c}</th>" for c in letters) + "<th></th></tr>"
        body = []
        for n, row in enumerate(self.rows):
            number = size - n
            cells = "".join(
                f'<td class="{"last" if c == "O" else ""}" style="width:2em;height:2em;text-align:center;'
                f'border:1px solid #999">{STONES[c]}</td>'
                for c in row
            )
            body.append(f"<tr><th>{number}</th>{cells}<th>{number}</th></tr>")
        marker = f'<p style="color:#888;font-size:11px">{htmlmod.escape(MARKER)}</p>\n' if self.marker else ""
        return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{htmlmod.escape(self.subject)}</title>
{_STYLE}
</head><body style="margin:0;padding:8px;font-family:sans-serif">
<div class="pbem" style="max-width:600px">
{marker}<p>Bob jumped b2-d4 and took 3 of your pieces. Your move, Alice (<b>{STONES["x"]}</b>).</p>
<div style="overflow-x:auto;max-width:100%">
<table class="board" role="grid" style="border-collapse:collapse;font-family:monospace">
{head}
{"".join(body)}
{head}
</table></div>
<table class="score"><tr><td>{STONES["x"]}</td><td>Alice</td><td>3 pieces</td></tr>
<tr><td>{STONES["o"]}</td><td>Bob</td><td>6 pieces</td></tr>
<tr><td>{STONES["O"]}</td><td>Bob's last move</td><td></td></tr>
<tr><td>{STONES["#"]}</td><td>blocked</td><td></td></tr></table>
<p>Reply with your move on the first line, for example:</p>
<div style="font-family:monospace;font-size:16px"><code>c4</code></div>
<p>or <code>a7-c6</code>. You can also write: <code>board</code>, <code>history</code>, <code>draw</code>,
<code>resign</code>, <code>help</code>.</p>
<p>Deadline: Mon 7 Dec 2026, 10:00 Europe/Rome (7 days).</p>
<p>To play Bob again when this game is over, write:</p>
<pre><code>challenge ataxx bob@example.org</code></pre>
<p>Game #42, infection 7x7, Alice (x) vs Bob (o), started 30 Nov 2026.</p>
<div class="footer" style="color:#666;font-size:12px">-- <br>
pbem, games by email. Write <code>help</code> in a mail to me for the commands.<br>
How to write a move: a square to clone (<code>c4</code>), or from-to to jump (<code>a7-c6</code>).</div>
</div></body></html>
"""

    def body_html(self) -> str:
        """What a client keeps of our HTML when it quotes it: the body's content."""
        doc = lxml.html.document_fromstring(self.html())
        return "".join(lxml.html.tostring(child, encoding="unicode") for child in doc.body)

    def text(self) -> str:
        if self.text_part is not None:
            return self.text_part
        return "\n".join(flatten(self.html(), "spaces")) + "\n"

    def as_bytes(self) -> bytes:
        msg = EmailMessage()
        msg["From"] = "pbem <game@pbem.example>"
        msg["To"] = f"{PLAYER[0]} <{PLAYER[1]}>"
        msg["Reply-To"] = self.reply_to
        msg["Subject"] = self.subject
        msg["Date"] = "Mon, 30 Nov 2026 10:00:00 +0100"
        msg["Message-ID"] = self.message_id
        msg.set_content(self.text())
        msg.add_alternative(self.html(), subtype="html", cte="quoted-printable")
        msg.set_boundary("==pbem-alternative==")
        return msg.as_bytes(policy=SMTP)


# --- flattening HTML as clients do for their text part ----------------------------------------

_BLOCKS = {"p", "div", "tr", "table", "pre", "br", "li", "ul", "ol", "hr", "blockquote", "title",
           "h1", "h2", "h3", "h4", "h5", "h6"}
_SKIP = {"head", "style", "script", "title"}


def flatten(markup: str, cells: str) -> list[str]:
    """The text lines of `markup`; table cells each on a line ("lines"), or joined by "tabs" or "spaces"."""
    doc = lxml.html.document_fromstring(markup)
    lines: list[str] = [""]
    glue = {"tabs": "\t", "spaces": " "}.get(cells)

    def newline() -> None:
        if lines[-1].strip():
            lines.append("")

    def add(text: str | None, pre: bool) -> None:
        if not text:
            return
        if pre:
            parts = text.split("\n")
            lines[-1] += parts[0]
            lines.extend(parts[1:])
        else:
            words = " ".join(text.split())
            lead = " " if text[:1].isspace() and lines[-1] and not lines[-1].endswith((" ", "\t")) else ""
            lines[-1] += lead + words + (" " if text[-1:].isspace() and words else "")

    def walk(node: lxml.html.HtmlElement, pre: bool) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        if tag in _SKIP:
            add(node.tail, pre)
            return
        pre = pre or tag == "pre"
        cell = tag in ("td", "th")
        if tag in _BLOCKS or (cell and glue is None):
            newline()
        if cell and glue is not None and node.getprevious() is not None:
            lines[-1] += glue
        add(node.text, pre)
        for child in node:
            walk(child, pre)
        if tag in _BLOCKS or (cell and glue is None):
            newline()
        if tag in ("p", "table"):
            lines.append("")  # a blank line after a paragraph, as clients leave one
        add(node.tail, pre)

    walk(doc.body if doc.find("body") is not None else doc, False)
    out: list[str] = []
    for line in (line if line == "-- " else line.rstrip() for line in lines):
        if line or (out and out[-1]):
            out.append(line)
    return out


def quote(lines: list[str], width: int | None = None) -> str:
    """`> ` before every line (Gmail and Apple wrap long ones, each piece quoted)."""
    out = []
    for line in lines:
        pieces = textwrap.wrap(line, width) if width and len(line) > width else [line]
        out.extend(f"> {piece}" if piece else ">" for piece in pieces)
    return "\n".join(out)


# --- the replies -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """One client's reply to `mail`: `top` is what the player typed (may be empty)."""

    client: str
    html: str
    text: str
    headers: dict[str, str]


# What a client writes above the quote, by language: English, and Hungarian, whose words the
# reply cutter does not know (so only the HTML quote containers, or `>`, show where the quote is).
ATTRIBUTIONS = {
    "en": {
        "gmail": "On Mon, 30 Nov 2026 at 10:00, pbem <{a}> wrote:",
        "apple": "On 30 Nov 2026, at 10:00, pbem <{a}> wrote:",
        "thunderbird": "On 30/11/2026 10:00, pbem wrote:",
        "outlook": ("From", "Sent", "To", "Subject"),
    },
    "hu": {
        "gmail": "pbem <{a}> ezt írta (időpont: 2026. nov. 30., H, 10:00):",
        "apple": "2026. nov. 30. dátummal, 10:00 időpontban pbem <{a}> írta:",
        "thunderbird": "2026. 11. 30. 10:00 keltezéssel, pbem írta:",
        "outlook": ("Feladó", "Elküldve", "Címzett", "Tárgy"),
    },
}
LANGUAGES = tuple(ATTRIBUTIONS)


def _attribution(lang: str, client: str, mail: OurMail) -> str:
    return str(ATTRIBUTIONS[lang][client]).format(a=mail.reply_to)


def _top(top: str) -> str:
    """What the player typed, as the client's editor writes it."""
    return htmlmod.escape(top).replace("\n", "<br>")


def _gmail(mail: OurMail, top: str, lang: str) -> Reply:
    attr = htmlmod.escape(_attribution(lang, "gmail", mail), quote=False)
    html = (
        f'<div dir="ltr">{_top(top) or "<br>"}</div><br><div class="gmail_quote gmail_quote_container">'
        f'<div dir="ltr" class="gmail_attr">{attr}<br></div>'
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);'
        f'padding-left:1ex"><div><u></u>{mail.body_html()}</div></blockquote></div>'
    )
    attribution = _attribution(lang, "gmail", mail)
    if lang == "en":  # Gmail wraps it before "wrote:"
        attribution = attribution.replace("> wrote:", ">\nwrote:")
    text = f"{top}\n\n{attribution}\n\n{quote(flatten(mail.html(), 'lines'), 76)}\n"
    return Reply("gmail", html, text, {"X-Mailer": ""})


def _outlook_header(mail: OurMail, lang: str) -> tuple[str, str]:
    sender, sent, to, subject = ATTRIBUTIONS[lang]["outlook"]
    html = (
        f"<b>{sender}:</b> pbem &lt;{mail.reply_to}&gt;<br><b>{sent}:</b> Monday, November 30, 2026 10:00 AM<br>"
        f"<b>{to}:</b> {PLAYER[0]} &lt;{PLAYER[1]}&gt;<br><b>{subject}:</b> {htmlmod.escape(mail.subject)}"
    )
    text = (
        f"{sender}: pbem <{mail.reply_to}>\n{sent}: Monday, November 30, 2026 10:00 AM\n"
        f"{to}: {PLAYER[0]} <{PLAYER[1]}>\n{subject}: {mail.subject}"
    )
    return html, text


def _outlook(mail: OurMail, top: str, lang: str) -> Reply:
    header_html, header_text = _outlook_header(mail, lang)
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
        '<style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head>'
        '<body dir="ltr"><div class="elementToProof" style="font-family: Aptos, Calibri, Helvetica, sans-serif;'
        f' font-size: 12pt; color: rgb(0, 0, 0);">{_top(top) or "<br>"}</div>'
        '<div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">'
        '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000">'
        f"{header_html}</font><div>&nbsp;</div></div><div>{mail.body_html()}</div></body></html>"
    )
    flat = "\n".join(flatten(mail.html(), "lines"))
    text = f"{top}\n\n________________________________\n{header_text}\n\n{flat}\n"
    return Reply("outlook", html, text, {"X-MS-Has-Attach": "", "Thread-Topic": mail.subject})


def _outlook_desktop(mail: OurMail, top: str, lang: str) -> Reply:
    """Outlook for Windows: Word's HTML, the header block in a bordered div, the mail pasted after it."""
    header_html, header_text = _outlook_header(mail, lang)
    html = (
        '<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta name=Generator content="Microsoft Word 15">'
        "<style><!-- p.MsoNormal {margin:0cm;font-size:11.0pt;font-family:\"Calibri\",sans-serif;} --></style></head>"
        '<body lang=EN-GB link="#0563C1" vlink="#954F72"><div class=WordSection1>'
        f"<p class=MsoNormal>{_top(top) or '&nbsp;'}<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>"
        '<div><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
        f"<p class=MsoNormal>{header_html}<o:p></o:p></p></div></div>"
        f"<p class=MsoNormal><o:p>&nbsp;</o:p></p>{mail.body_html()}</div></body></html>"
    )
    flat = "\n".join(flatten(mail.html(), "tabs"))
    text = f"{top}\n\n{header_text}\n\n{flat}\n"
    return Reply("outlook_desktop", html, text, {"X-Mailer": "Microsoft Outlook 16.0"})


def _apple(mail: OurMail, top: str, lang: str) -> Reply:
    attr = htmlmod.escape(_attribution(lang, "apple", mail), quote=False)
    html = (
        '<html aria-label="message body"><head><meta http-equiv="content-type" content="text/html; charset=utf-8">'
        '</head><body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;">'
        f'{_top(top)}<br id="lineBreakAtBeginningOfMessage"><div><br><blockquote type="cite">'
        f'<div>{attr}</div><br class="Apple-interchange-newline"><div>{mail.body_html()}</div></blockquote></div>'
        "<br></body></html>"
    )
    attribution = _attribution(lang, "apple", mail)
    text = f"{top}\n\n{quote([attribution, '', *flatten(mail.html(), 'tabs')])}\n\n"
    return Reply("apple", html, text, {"X-Mailer": "Apple Mail (2.3826.200.121)"})


def _ios(mail: OurMail, top: str, lang: str) -> Reply:
    attr = htmlmod.escape(_attribution(lang, "apple", mail), quote=False)
    html = (
        '<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">'
        f'<div dir="ltr">{_top(top) or "<br>"}</div><div dir="ltr"><br></div>'
        '<div dir="ltr">Sent from my iPhone</div><div dir="ltr"><br>'
        f'<blockquote type="cite">{attr}<br><br></blockquote></div>'
        f'<blockquote type="cite"><div dir="ltr">{mail.body_html()}</div></blockquote></body></html>'
    )
    attribution = _attribution(lang, "apple", mail)
    text = f"{top}\n\nSent from my iPhone\n\n{quote([attribution, '', *flatten(mail.html(), 'lines')])}\n"
    return Reply("ios", html, text, {"X-Mailer": "iPhone Mail (22B83)"})


def _thunderbird(mail: OurMail, top: str, lang: str) -> Reply:
    attribution = _attribution(lang, "thunderbird", mail)
    html = (
        '<!DOCTYPE html>\n<html>\n  <head>\n    <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">\n'
        f"  </head>\n  <body>\n    <p>{_top(top) or '<br>'}</p>\n"
        f'    <div class="moz-cite-prefix">{htmlmod.escape(attribution, quote=False)}<br>\n    </div>\n'
        f'    <blockquote type="cite" cite="mid:{mail.message_id.strip("<>")}">{_STYLE}{mail.body_html()}</blockquote>\n'
        "  </body>\n</html>\n"
    )
    text = f"{top}\n\n{attribution}\n{quote(flatten(mail.html(), 'spaces'))}\n"
    return Reply("thunderbird", html, text, {"User-Agent": "Mozilla Thunderbird"})


def _gmx(mail: OurMail, top: str, lang: str) -> Reply:
    """GMX and Web.de: the header block (Sent before From) inside a `<div name="quote">`."""
    html = (
        '<html><head></head><body><div style="font-family: Verdana;font-size: 12.0px;">'
        f"<div>{_top(top) or '&nbsp;'}</div><div>&nbsp;</div>"
        '<div name="quote" style="margin:10px 5px 5px 10px; padding: 10px 0 10px 10px; border-left:2px solid #C3D9E5;">'
        '<div style="margin:0 0 10px 0;"><b>Gesendet:</b>&nbsp;Montag, 30. November 2026 um 10:00 Uhr<br/>'
        f"<b>Von:</b>&nbsp;&quot;pbem&quot; &lt;{mail.reply_to}&gt;<br/><b>An:</b>&nbsp;{PLAYER[1]}<br/>"
        f'<b>Betreff:</b>&nbsp;{htmlmod.escape(mail.subject)}</div><div name="quoted-content">{mail.body_html()}'
        "</div></div></div></body></html>"
    )
    header = (
        f'Gesendet: Montag, 30. November 2026 um 10:00 Uhr\nVon: "pbem" <{mail.reply_to}>\nAn: {PLAYER[1]}\n'
        f"Betreff: {mail.subject}"
    )
    flat = "\n".join(flatten(mail.html(), "lines"))
    return Reply("gmx", html, f"{top}\n\n\n{header}\n{flat}\n", {"X-UI-Message-Type": "mail"})


def _pasted(mail: OurMail, top: str, lang: str) -> Reply:
    """A client that pastes our mail, flattened, below the reply with no header and no `>`."""
    html = f"<div>{_top(top) or '<br>'}</div><div><br></div><div>{mail.body_html()}</div>"
    flat = "\n".join(flatten(mail.html(), "spaces"))
    return Reply("pasted", html, f"{top}\n\n{flat}\n", {})


CLIENTS: dict[str, Callable[[OurMail, str, str], Reply]] = {
    "gmail": _gmail,
    "outlook": _outlook,
    "outlook_desktop": _outlook_desktop,
    "apple": _apple,
    "ios": _ios,
    "thunderbird": _thunderbird,
    "gmx": _gmx,
}
# Not a client's own way: no header, no quote marks, no container. Only our marker, or failing
# that the board's axis, tells where the quote starts (see the tests).
PASTED = _pasted
FORMS = ("html", "alternative")  # HTML only; or multipart/alternative with the client's text part


def reply(
    client: str, form: str, top: str, mail: OurMail | None = None, sender: str | None = None, lang: str = "en"
) -> bytes:
    """The bytes of `client`'s reply to `mail` with `top` typed above the quote, as `form`; the
    client's own words (attribution, header labels) in `lang` (GMX writes German whatever it is)."""
    mail = mail or OurMail()
    made = PASTED(mail, top, lang) if client == "pasted" else CLIENTS[client](mail, top, lang)
    msg = EmailMessage()
    msg["From"] = sender or f"{PLAYER[0]} <{PLAYER[1]}>"
    msg["To"] = f"pbem <{mail.reply_to}>"
    msg["Subject"] = f"Re: {mail.subject}"
    msg["Date"] = "Mon, 30 Nov 2026 10:12:19 +0100"
    msg["Message-ID"] = f"<{client}.{form}.{'top' if top else 'empty'}@client.example>"
    msg["In-Reply-To"] = mail.message_id
    msg["References"] = mail.message_id
    for key, value in made.headers.items():
        if value:
            msg[key] = value
    if form == "html":
        msg.set_content(made.html, subtype="html", cte="quoted-printable")
    else:
        params = {"format": "flowed"} if client == "thunderbird" else {}
        msg.set_content(made.text, cte="quoted-printable", params=params)
        msg.add_alternative(made.html, subtype="html", cte="quoted-printable")
        msg.set_boundary(f"=={client}-alternative==")
    return msg.as_bytes(policy=SMTP)


CASES = [(client, form) for client in CLIENTS for form in FORMS]
MOVE = {"ios": "d4"}  # what the player typed on top, by client (b2-c3 otherwise)


def fixture_name(client: str, form: str, top: str) -> str:
    return f"{client}_{form}{'' if top else '_empty'}.eml"


def fixtures() -> dict[str, bytes]:
    """Every fixture file under fixtures/html/ and its bytes."""
    out = {"our_mail.eml": OurMail().as_bytes()}
    for client, form in CASES:
        for top in (MOVE.get(client, "b2-c3"), ""):
            out[fixture_name(client, form, top)] = reply(client, form, top)
    return out


def write_fixtures() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, data in fixtures().items():
        (FIXTURES / name).write_bytes(data)


def without_marker() -> OurMail:
    return replace(OurMail(), marker=False)


if __name__ == "__main__":
    write_fixtures()
