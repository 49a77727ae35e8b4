"""The servers of the places where specs are written: `tlacheck mcp` (mcp_server) for coding
agents. Each runs the command line in a child process and returns what it prints, so that a
server answers exactly what `tlacheck ... --json` says, within bounds of time and states."""
