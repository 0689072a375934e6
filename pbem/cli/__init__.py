"""The `pbem` command line: serve, the sandbox, and `pbem admin`."""
