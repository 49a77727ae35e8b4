"""The typed intermediate representation (nodes): what the front end produces and every later
stage (compile, engine's liveness, prove) consumes, with the analyses over it (reads_state).
"""
