"""Results made readable and portable: text and JSON (report), Graphviz (render), ITF (itf),
counterexample artefacts (artefacts), saved traces read back (savedtrace) and replayed (replay).
"""
