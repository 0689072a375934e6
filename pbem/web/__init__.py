"""The web face: read-only pages of the games, players, tournaments, ladders, open challenges
and rules, an Atom feed per player, and the one-click unsubscribe (RFC 8058), the only write.

Served by uvicorn in the daemon's event loop when `[web] enabled` (on in the sandbox), or
alone by `pbem web`, over the same settings and database. Nothing outside the daemon and
the command line imports this package.

- `app`: the Starlette application and its routes;
- `guard`: security headers (CSP with a nonce per response), the rate limit, read-only;
- `speech`: the reader's language (`?lang=` or Accept-Language) and the page templates;
- `seen`: what a stranger may see: the listed games, the players who agreed;
- `pages`: the page handlers; `views`: the data they render;
- `drawing`: the board and the rating plot as SVG, drawn on the server;
- `feeds`: the Atom feed of a player's listed games' moves;
- `server`: the uvicorn server, its readiness line, `pbem web`.
"""
