"""What a user runs: the command line (cli, the only module that prints or exits), `tlacheck
verify` (verify) and the pytest plugin (pytest_plugin).
"""
