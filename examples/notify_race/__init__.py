"""The notify race in real asyncio code, buggy and fixed, logged for `tlacheck conform`
(examples/README.md, docs/case-studies/conform_notify_race.md)."""
