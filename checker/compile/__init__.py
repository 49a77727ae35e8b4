"""The IR made executable: codegen emits one Python function per action, invariant, constraint
and predicate; model builds the Model, the one interface the engine and prove see.
"""
