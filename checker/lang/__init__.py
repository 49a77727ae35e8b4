"""The front end: the grammar and its one parser (parser, grammar.lark), the syntax tree
(syntax), variants applied to it (variants), and name resolution and type inference that
turn it into the IR (typecheck). The only package that imports `lark`.
"""
