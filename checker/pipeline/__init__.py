"""The pipeline's one driver: a spec's text through the front end's passes and compilation to its
Model (driver), reading and parsing each file once.
"""
