"""Text to AST. The only module that imports `lark`.

Parse first (LALR, with positions), transform after: the Transformer builds the
frozen dataclasses of syntax.py, and parser failures become `SpecError`s with a
`file:line:col`, a caret and a hint.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import DedentError, Indenter
from lark.lexer import PatternStr

from tlacheck.core.cache import cache_folder
from tlacheck.core.errors import Diagnostic, SpecError, suggest
from tlacheck.core.result import Expectation
from tlacheck.core.source import Source, Span
from tlacheck.lang import syntax as S


# Human names for the terminals a user may see in "expected ..." messages.
_TOKEN_NAMES = {
    "NAME": "a name", "INT": "a number", "_NL": "end of line", "_INDENT": "an indented block",
    "_DEDENT": "end of block", "$END": "end of file", "COLON": "`:`", "COMMA": "`,`",
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "LBRACE": "`{`", "RBRACE": "`}`",
    "EQUAL": "`=`", "DOT": "`.`", "COMP_OP": "a comparison", "PLUS": "`+`", "STAR": "`*`", "PERCENT": "`%`", "SLASH": "`/`",
    "QMARK": "`?`", "_COALESCE": "`??`", "VBAR": "`|`", "AMPERSAND": "`&`", "MINUS": "`-`",
    "TYPE_KW": "`type`", "BLOCK_KW": "`block`", "EXTEND_KW": "`extend`", "BEFORE_KW": "`before`", "AFTER_KW": "`after`",
    "DEADLOCK_KW": "`deadlock`", "INIT_KW": "`init`", "PROCESS_KW": "`process`", "AWAIT_KW": "`await`",
    "GOTO_KW": "`goto`", "WHILE_KW": "`while`", "REFINES_KW": "`refines`", "IMPORT_KW": "`import`", "STRING": "a string",
    "CONFORM_KW": "`conform`", "ASSUME_KW": "`assume`",
}

# Soft keywords: a name at the start of a line (or after `replace`), outside brackets, followed
# by these tokens, is a keyword (`type Msg = ...`, `block notify(c: C):`, `extend action A:`,
# `before:`, `deadlock: allowed`, `init: x < y`); anywhere else it stays a name (`{type: T}`,
# `m.type`, a parameter called `block`, a variable called `init`), as Python's `match`.
_SOFT_KEYWORDS = {
    "type": ("NAME", "EQUAL"), "block": ("NAME", "LPAR"), "extend": ("ACTION",),
    "before": ("COLON",), "after": ("COLON",), "deadlock": ("COLON",), "init": ("COLON",),
    "process": ("NAME",), "goto": ("NAME",), "refines": ("NAME", "STRING"), "import": ("STRING",),
    "conform": ("COLON", "_NL"), "assume": ("NAME", "COLON"),
}
# Soft keywords that begin a statement with an expression (`await queue != []`, `while x < 3:`):
# keywords unless the next token makes the name a variable's (`await = 1`, `while[k] = 2`, a field)
# or ends the line. They are also keywords right after a label's `:` (`wait: await ready`).
_STATEMENT_KEYWORDS = {"await", "while"}
_NOT_AFTER_STATEMENT_KEYWORD = {"EQUAL", "LSQB", "DOT", "_NL", "COLON", "COMMA", "RPAR"}

# The lines of a `conform:` section, by their leading word (as hints show them), and the words
# each shape of line may start with.
_CONFORM_LINES = {
    "event": '`event "NAME" = Action` (or `= A then B`, `= A(p = "arg")`, `= skip`)',
    "field": '`field "NAME" = variable`',
    "values": '`values Type: "text" = Member, ...`',
    "ignore": '`ignore "NAME", ...`',
    "silent": "`silent Action, ...`",
    "lazy": "`lazy Action, ...`",
}
_CONFORM_SHAPES = {"map": ("event", "field"), "skip": ("event",), "values": ("values",), "strings": ("ignore",),
                   "names": ("silent", "lazy")}

# The words of `deadlock: WORD`, and what each says: is a deadlock allowed?
_DEADLOCK_WORDS = {"allowed": True, "forbidden": False}

# How deeply a spec may nest (E007): every level of the parse tree counts (an operator, a
# bracket, a call, a statement block), and so does every name bound before a sub-tree (`let`
# lines, generators, `with` binders, action parameters), because the later stages nest those
# too. The later stages recurse once or more per level: the limit keeps them far from Python's
# recursion limit and the compiler's limits (200 nested parentheses, 100 indentation levels).
MAX_NESTING = 100
_BINDING_RULES = frozenset({"let_line", "generator", "binder", "action_param"})

_KEYWORDS = {
    "spec", "const", "enum", "var", "action", "def", "invariant", "constraint", "require", "let", "skip",
    "if", "elif", "else", "either", "or", "with", "then", "implies", "and", "not", "in", "subset",
    "true", "false", "none", "for", "bool", "int", "model", "set", "seq", "map",
    "property", "reachable", "fair", "weak", "strong", "theorem", "forall", "variant", "replace", "remove",
    "expect", "holds", "violates", "proves", "refutes", "deadlocks", "always", "eventually", "leads_to", "by",
    "derived",
}
# Every word the language reserves or reads as a keyword where it stands (soft keywords
# included): what an editor completes and highlights as a keyword.
KEYWORDS = frozenset(_KEYWORDS | set(_SOFT_KEYWORDS) | _STATEMENT_KEYWORDS)


TAB_LEN = 8  # the indentation width of a tab (editing/fmt.py counts a tab as these spaces)


class _SpecIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = TAB_LEN

    def process(self, stream):
        return super().process(_join_continuations(_soft_keywords(stream)))

    def handle_NL(self, token):
        try:
            yield from super().handle_NL(token)
        except DedentError:
            raise _BadDedent(token.end_line, token.end_column) from None


# Line continuation (docs/language.md, "Lexical structure"): outside brackets, a line break is
# dropped when the line before cannot end there (it ends with one of _OPEN_ENDS) or the next line
# cannot start a statement (it starts with one of _CONTINUERS), provided the next line is indented
# at least as far as the line on which the statement began; a line indented less always ends the
# statement. Compared by value, for keyword and punctuation tokens only (never NAME, INT, STRING).
_BINARY = {"and", "or", "implies", "leads_to", "in", "subset", "==", "!=", "<", "<=", ">", ">=",
           "??", "|", "&", "..", "+", "-", "*", "//", "%"}
_OPEN_ENDS = _BINARY | {"not", "=", "->", ",", "then", "else"}
_CONTINUERS = (_BINARY - {"-"}) | {"->", "then", "else", "elif"}  # `-x` may start an expression
_OPENERS = {"LPAR", "LSQB", "LBRACE"}
_CLOSERS = {"RPAR", "RSQB", "RBRACE"}
_LITERALS = {"NAME", "INT", "STRING"}


class _Lookahead:
    """An iterator of tokens that can look ahead without consuming (lazily: a lexer error after
    the point where parsing fails is never reached first)."""

    def __init__(self, stream):
        self.stream = iter(stream)
        self.buffer = []

    def __iter__(self):
        return self

    def __next__(self):
        return self.buffer.pop(0) if self.buffer else next(self.stream)

    def peek(self, i: int = 0):
        while len(self.buffer) <= i:
            tok = next(self.stream, None)
            if tok is None:
                return None
            self.buffer.append(tok)
        return self.buffer[i]


def _indent_of(nl: Token) -> int:
    text = nl.value.rsplit("\n", 1)[-1]
    return text.count(" ") + text.count("\t") * _SpecIndenter.tab_len


def _is(tok, values) -> bool:
    return tok is not None and tok.type not in _LITERALS and tok.value in values


def _starts_a_clause(tokens: _Lookahead) -> bool:
    """`or:` (an either branch), `else:` and `elif COND:` (a line that opens a block: `:` outside
    brackets) start a clause of a statement; `else e` and `elif c then e` continue an expression."""
    first = tokens.peek(0)
    if first.value in ("or", "else"):
        nxt = tokens.peek(1)
        return nxt is not None and nxt.type == "COLON"
    if first.value == "elif":
        depth, i = 0, 1
        while (tok := tokens.peek(i)) is not None and not (tok.type == "_NL" and depth == 0):
            if tok.type == "COLON" and depth == 0:
                return True
            depth += (tok.type in _OPENERS) - (tok.type in _CLOSERS)
            i += 1
    return False


def _join_continuations(stream):
    """Drop the line breaks that continue a statement (the rule above _BINARY)."""
    tokens = _Lookahead(stream)
    depth = 0
    statement_indent = 0
    before = None
    for tok in tokens:
        if tok.type == "_NL" and depth == 0:
            indent = _indent_of(tok)
            nxt = tokens.peek()
            if nxt is not None and nxt.type != "_NL" and indent >= statement_indent and (
                    _is(before, _OPEN_ENDS) or (_is(nxt, _CONTINUERS) and not _starts_a_clause(tokens))):
                continue
            statement_indent = indent
        elif tok.type in _OPENERS:
            depth += 1
        elif tok.type in _CLOSERS:
            depth = max(depth - 1, 0)
        before = tok
        yield tok


def _soft_keywords(stream):
    """Retag the soft keywords of _SOFT_KEYWORDS (NAME to TYPE_KW, BLOCK_KW...) where they start a
    line (or follow `replace`) outside brackets and the next tokens are the ones listed there."""
    stream = iter(stream)
    ahead: list[Token] = []
    depth = 0
    line_start = True
    line_start_name = after_label = False
    while True:
        tok = ahead.pop(0) if ahead else next(stream, None)
        if tok is None:
            return
        follow = _SOFT_KEYWORDS.get(tok.value) if tok.type == "NAME" and line_start and depth == 0 else None
        if tok.type == "NAME" and (line_start or after_label) and depth == 0 and tok.value in _STATEMENT_KEYWORDS:
            if not ahead:
                nxt = next(stream, None)
                if nxt is not None:
                    ahead.append(nxt)
            if ahead and ahead[0].type not in _NOT_AFTER_STATEMENT_KEYWORD:
                tok = Token.new_borrow_pos(tok.value.upper() + "_KW", tok.value, tok)
        elif after_label and tok.type == "NAME" and tok.value in ("goto",):
            follow = _SOFT_KEYWORDS.get(tok.value)
        if follow:
            while len(ahead) < len(follow):
                nxt = next(stream, None)
                if nxt is None:
                    break
                ahead.append(nxt)
            if tuple(t.type for t in ahead[:len(follow)]) == follow:
                tok = Token.new_borrow_pos(tok.value.upper() + "_KW", tok.value, tok)
        if tok.type in _SpecIndenter.OPEN_PAREN_types:
            depth += 1
        elif tok.type in _SpecIndenter.CLOSE_PAREN_types:
            depth = max(0, depth - 1)
        # `wait: await ready`: a statement may follow a label's colon on its line
        after_label = tok.type == "COLON" and line_start_name and depth == 0
        line_start_name = line_start and tok.type == "NAME"
        # `replace type ...`, `replace block ...`, `fair process ...`, `fair strong process ...`
        line_start = tok.type in ("_NL", "REPLACE", "FAIR", "WEAK", "STRONG")
        yield tok


class _BadDedent(Exception):
    def __init__(self, line: int, column: int):
        super().__init__(line, column)
        self.line = line
        self.column = column


def cache_file() -> str | bool:
    """Where Lark keeps the analysed grammar: a file in the user's private cache folder
    (checker.core.cache), or False (no cache) when there is none."""
    folder = cache_folder()
    return os.path.join(folder, "grammar-py%d.%d.lark" % sys.version_info[:2]) if folder else False


@lru_cache(maxsize=None)
def _lark() -> Lark:
    """The one parser, for whole specs (start) and for single expressions (expr_start: the VALUE
    of `-D NAME=VALUE`). Lark caches the analysed grammar (cache_file; Lark checks that the file
    was made from this grammar and these options, and rebuilds it otherwise), which makes
    start-up 2-3 times faster than analysing the grammar in every process."""
    grammar = resources.files("tlacheck.lang").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="basic",
        start=["start", "expr_start"],
        postlex=_SpecIndenter(),
        propagate_positions=True,
        maybe_placeholders=True,
        cache=cache_file(),
    )


@dataclass(frozen=True)
class Lexeme:
    """One token of a spec as written, for tools that work on the text (the formatter, an
    editor's highlighting): its terminal's name (`NAME`, `INT`, `STRING`, a keyword's or a
    punctuation's name such as `VAR` or `LPAR`, a soft keyword's such as `TYPE_KW` where it is
    one; `COMMENT` for a comment, `BACKSLASH` for a `\\` that joins two lines), its text and
    where it starts (1-based). `continues` is set on the first lexeme of a line that goes on with
    the statement of the line before: inside brackets, after a `\\`, or by the line continuation
    rule (see _BINARY); a line that starts a statement has it unset."""

    kind: str
    text: str
    line: int
    column: int
    continues: bool = False


# The names of the terminals the grammar writes as bare strings (Lark calls them __ANON_n).
_UNNAMED = {"->": "ARROW", "int": "INT_TYPE", "..": "DOTDOT", "//": "FLOORDIV"}


def lexemes(source: Source, partial: bool = False) -> list[Lexeme]:
    """The tokens of a spec that parses, comments included, in the order of the text. A text
    that does not lex (a bad character, a bad indentation) raises Lark's or the indenter's error,
    or with `partial` gives its tokens up to that error (and its comments): an editor's
    highlighting of a half-typed spec."""
    text = source.text if source.text.endswith("\n") else source.text + "\n"
    out: list[Lexeme] = []
    after_break, last_line = True, 0
    ends: dict[int, int] = {}  # line -> the 0-based column after its last token
    for tok in _tokens_of(text, partial):
        if tok.type in ("_INDENT", "_DEDENT"):
            continue
        if tok.type == "_NL":
            after_break = True
            continue
        first = tok.line != last_line
        kind = _UNNAMED.get(tok.value, tok.type) if tok.type.startswith("__") else tok.type
        out.append(Lexeme(kind, str(tok.value), tok.line, tok.column, first and not after_break and bool(out)))
        after_break, last_line = False, tok.end_line
        ends[tok.line] = tok.end_column - 1
    # What the parser skips, after a line's last token (a `#` before it is inside a string):
    # a comment, or a `\` that joins the line to the next.
    for number, line in enumerate(text.split("\n"), 1):
        rest = line[ends.get(number, 0):]
        stripped = rest.lstrip(" \t")
        at = len(line) - len(stripped) + 1
        if stripped.startswith("#"):
            out.append(Lexeme("COMMENT", stripped.rstrip(), number, at))
        elif stripped.startswith("\\"):
            out.append(Lexeme("BACKSLASH", "\\", number, at))
    return sorted(out, key=lambda x: (x.line, x.column))


def _tokens_of(text: str, partial: bool):
    """The parser's own token stream: soft keywords retagged, continuations joined."""
    try:
        yield from _lark().lex(text)
    except (UnexpectedInput, _BadDedent):
        if not partial:
            raise


# How many syntax errors one parse reports (parse_recovering): each costs a parse of the file.
MAX_SYNTAX_ERRORS = 20


def parse(source: Source) -> S.SpecFile:
    """Parse a whole spec file. Raises SpecError (E001-E007) on bad syntax, with the first error
    of every top-level declaration that has one (parse_recovering), in the order of the file."""
    spec, diagnostics = parse_recovering(source)
    if diagnostics:
        raise SpecError(diagnostics)
    assert spec is not None
    return spec


def parse_recovering(source: Source) -> tuple[S.SpecFile | None, list[Diagnostic]]:
    """Parse a spec that may have syntax errors: the syntax errors, at most MAX_SYNTAX_ERRORS, in
    the order of the file, and the AST of the declarations without one (None when nothing is
    left to parse, or there are more errors than that).

    Recovery is by top-level declaration: after an error, the declaration it is in (from the line
    at column 0 that starts it to the next such line; a whole `variant` or `process`) is blanked,
    its lines kept empty so that every span stays where it was, and the file is parsed again. So
    an error never cascades into the next declaration, and a declaration with an error is left out
    of the AST as a whole (a name it declares is unknown to the stages after it)."""
    lines = source.text.split("\n")
    diagnostics: list[Diagnostic] = []
    while True:
        try:
            return _parse_one(Source(source.name, "\n".join(lines))), _in_order(diagnostics)
        except SpecError as exc:
            diagnostics.extend(exc.diagnostics)
            span = exc.diagnostics[0].span
        chunk = _declaration_at(lines, span.line if span is not None else len(lines))
        if len(diagnostics) >= MAX_SYNTAX_ERRORS or not any(lines[i].strip() for i in chunk):
            return None, _in_order(diagnostics)
        for i in chunk:
            lines[i] = ""


def _in_order(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))


def _declaration_at(lines: list[str], line: int) -> range:
    """The 0-based indices of the lines of the top-level declaration around 1-based `line`: from
    the last line at or before it that starts at column 0 with something other than a comment,
    to the line before the next one (an error past the end is in the last declaration)."""
    def starts(i: int) -> bool:
        text = lines[i]
        return bool(text) and not text[0].isspace() and not text.startswith("#")

    at = min(max(line, 1), len(lines)) - 1
    first = next((i for i in range(at, -1, -1) if starts(i)), 0)
    end = next((i for i in range(at + 1, len(lines)) if starts(i)), len(lines))
    return range(first, end)


def _parse_one(source: Source) -> S.SpecFile:
    """Parse a whole spec file, stopping at its first syntax error (a SpecError)."""
    text = source.text
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _lark().parse(text, start="start")
    except UnexpectedInput as exc:
        raise _syntax_error(source, exc) from None
    except _BadDedent as exc:
        raise SpecError.single("E003", "this line's indentation matches no enclosing block",
                               source.span(exc.line, exc.column),
                               "indent it exactly as far as the block it belongs to") from None
    _check_nesting(source, tree)
    return _transform(source, tree)


def parse_expression(source: Source) -> S.Expr:
    """Parse a single expression, e.g. the VALUE of `-D NAME=VALUE`."""
    text = source.text.replace("\n", " ") + "\n"
    try:
        tree = _lark().parse(text, start="expr_start")
    except UnexpectedInput as exc:
        raise _syntax_error(source, exc) from None
    _check_nesting(source, tree)
    return _transform(source, tree.children[0])


def _check_nesting(source: Source, tree: Tree) -> None:
    """Raise E007 at the first sub-tree nested more than MAX_NESTING levels deep (see there).
    Iterative, so that it cannot itself run out of stack."""
    stack = [(tree, 1)]
    while stack:  # pre-order, so the error points at the first offending sub-tree in the text
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise SpecError.single("E007", f"this is nested too deeply (more than {MAX_NESTING} levels)",
                                   _tree_span(source, node),
                                   "move part of the expression or block into a `def`; every operator, bracket, "
                                   "block and bound name (`let`, `for`, `with`, parameter) counts as a level")
        children = []
        bound = 0
        for child in node.children:
            if isinstance(child, Tree):
                children.append((child, depth + 1 + bound))
                if child.data in _BINDING_RULES:
                    bound += 1
        stack.extend(reversed(children))


def _tree_span(source: Source, node: Tree) -> Span:
    meta = node.meta
    if getattr(meta, "empty", True):
        tokens = [t for t in node.scan_values(lambda v: isinstance(v, Token)) if t.line is not None]
        if not tokens:
            return source.span(1, 1)
        return _tok_span(source, tokens[0])
    return _span(source, meta)


def _transform(source: Source, tree: Tree):
    try:
        return _Builder(source).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, SpecError):
            raise exc.orig_exc from None
        raise


def _syntax_error(source: Source, exc: UnexpectedInput) -> SpecError:
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    if not isinstance(line, int) or line < 1:
        lines = source.text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
    span = source.span(line, column)
    if isinstance(exc, UnexpectedCharacters):
        char = source.line_text(line)[column - 1:column] or "?"
        hint = None
        if char == "\t":
            hint = "use spaces to indent"
        elif char == "'":
            hint = "no primes needed: inside an action, `x = e` sets the next value of x"
        elif char == '"':
            hint = "a string ends on its line; values are not strings: use an enum member or a model value"
        elif char == "=":
            hint = "compare with `==`; assign with `=` only at the start of a statement"
        return SpecError([Diagnostic("E002", f"unexpected character {char!r}", span, hint)])
    if isinstance(exc, UnexpectedEOF):
        return SpecError([Diagnostic("E004", "unexpected end of file", span,
                                     "a declaration or block is unfinished")])
    assert isinstance(exc, UnexpectedToken)
    token = exc.token
    expected = sorted({_TOKEN_NAMES.get(t, _describe_terminal(t)) for t in exc.expected})
    if token.type == "$END":
        got = "end of file"
    elif token.type == "_NL":
        got = "end of line"
        span = source.span(token.line or line, token.column or column)
    elif token.type == "_INDENT":  # borrowed from the line break: point at the indented line itself
        got = "indentation"
        span = source.span(token.end_line, token.end_column)
    elif token.type == "_DEDENT":
        got = "the end of the block"
    else:
        got = f"`{token.value}`"
        if token.end_column and token.line == token.end_line:
            span = Span(source.name, token.line, token.column, token.end_line, token.end_column)
    hint = None
    if len(expected) <= 6:
        hint = "expected " + ", ".join(expected)
    if token.value in _KEYWORDS and "NAME" in exc.expected:
        hint = f"`{token.value}` is a keyword and cannot be used as a name"
    if hint is None and "THEN" in exc.expected and "THEN" in _accepted(exc):
        hint = "an `if` in an expression reads `if c then a else b`, with any number of `elif d then e` " \
               "before the `else`, which is required"
    if token.type == "_INDENT":
        hint = "this line is indented more than the one before it"
    text = source.line_text(token.line) if isinstance(token.line, int) else ""
    at = token.column - 1 if isinstance(token.column, int) else -1
    if token.type == "NOT" and "NAME" in exc.expected:  # `a == not b`: `not` binds more loosely
        left, right = _operand_before(text, at), _operand_after(text, at)
        hint = f"add parentheses: `{left} ({right})`"
    if token.type in ("COMP_OP", "IN", "NOT", "SUBSET") and "EQUAL" in exc.expected:
        hint = f"write `require {text.split('#')[0].strip()}` (a guard: the action is enabled only where it holds)"
    if token.type == "_NL" and _ends_open(text[:at]):
        hint = f"a line cannot end with `{_ends_open(text[:at])}`: continue on the next line, " \
               "indented at least as far as the line the statement starts on"
    if token.type == "STRING":
        hint = ("values are not strings (strings describe variants, name files and, in `conform:`, a log's names): "
                "use an enum member or a model value")
    pair = text[at:at + 2] if at >= 0 else ""
    if pair in ("&&", "||") or (pair[:1] in ("&", "|") and text[at - 1:at] == pair[:1]):
        hint = f"write `{'and' if pair[:1] == '&' else 'or'}` (`{pair[:1]}` is set {'intersection' if pair[:1] == '&' else 'union'})"
    elif pair in ("+=", "-=", "*=", "%="):
        target, value = text[:at].strip() or "x", text[at + 2:].strip() or "e"
        if not value.replace("_", "").isalnum():
            value = f"({value})"
        hint = f"there is no `{pair}`: write `{target} = {target} {pair[0]} {value}`"
    elif token.value == "=" and "EQUAL" not in exc.expected:
        hint = "compare with `==`; `=` assigns, and only at the start of a statement"
    if token.type == "_COALESCE" and "QMARK" in exc.expected:
        hint = "an option of an option (`T??`) is not allowed; `??` is the operator that takes a value out of an option"
    if token.value == "=" and set(exc.expected) == {"COLON"}:
        words = text.split()
        if len(words) >= 2 and words[0] in ("var", "const"):
            hint = f"a {'variable' if words[0] == 'var' else 'constant'} needs a type before its value: " \
                   f"`{words[0]} {words[1]}: T = ...`, with T a type such as `int`, `0..3` or `set[int]`"
    if token.value == "'":  # a prime where no expression ends (`x' = e` in an action): as a stray character
        return SpecError([Diagnostic("E002", "unexpected character \"'\"", span,
                                     "no primes needed: inside an action, `x = e` sets the next value of x")])
    shape = _conform_shape(source, token.line) if isinstance(token.line, int) else None
    if shape is not None and token.type not in ("_INDENT", "_DEDENT", "$END"):
        hint = f"write {shape}"
    code = "E003" if token.type in ("_INDENT", "_DEDENT") else "E004" if token.type == "$END" else "E001"
    return SpecError([Diagnostic(code, f"unexpected {got}", span, hint)])


def _conform_shape(source: Source, line: int) -> str | None:
    """The shape of the `conform:` line `line` is (its first word's, _CONFORM_LINES), when it is
    one: the nearest less indented line above it opens the section."""
    text = source.line_text(line)
    words = text.split()
    if not words or words[0] not in _CONFORM_LINES:
        return None
    indent = len(text) - len(text.lstrip())
    for above in range(line - 1, 0, -1):
        prior = source.line_text(above)
        if not prior.strip() or prior.lstrip().startswith("#"):
            continue
        if len(prior) - len(prior.lstrip()) < indent:
            return _CONFORM_LINES[words[0]] if prior.split()[-1:] == ["conform:"] else None
    return None


_WORD_BOUNDARIES = {"require", "and", "or", "implies", "leads_to", "then", "else", "if", "not", "in"}


def _operand_before(text: str, at: int) -> str:
    """The operand and operator in front of column `at` (0-based) of a line: back to an
    unmatched bracket, `,`, `:`, `=` or a keyword of lower precedence."""
    depth, i = 0, at
    while i > 0:
        ch = text[i - 1]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (ch in ",:" or (ch == "=" and text[i - 2:i - 1] not in "=!<>"
                                               and text[i:i + 1] != "=")):
            break
        elif depth == 0 and ch == " " and text[:i - 1].split(" ")[-1] in _WORD_BOUNDARIES - {"in"}:
            break
        i -= 1
    return text[i:at].strip()


def _operand_after(text: str, at: int) -> str:
    """From column `at` (0-based) to an unmatched bracket, `,`, `:`, a comment or a keyword of
    lower precedence than `not` (`and`, `or`, `implies`, ...)."""
    depth, i = 0, at
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (ch in ",:#" or (ch == " " and text[i + 1:].split(" ")[0]
                                              in {"and", "or", "implies", "leads_to", "then", "else"})):
            break
        i += 1
    return text[at:i].strip()


def _accepted(exc: UnexpectedToken) -> set[str]:
    """The terminals the parser would really take where it failed (`exc.expected` holds more:
    LALR's merged states)."""
    parser = getattr(exc, "interactive_parser", None)
    return parser.accepts() if parser is not None else set(exc.expected)


_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|==|!=|<=|>=|->|\.\.|//|\?\?|\S")


def _ends_open(text: str) -> str | None:
    """The token a line's text ends with (before a comment), if a line cannot end there."""
    words = _WORDS.findall(text.split("#")[0])
    return words[-1] if words and words[-1] in _OPEN_ENDS else None


def _describe_terminal(name: str) -> str:
    if name.isupper() and name.lower() in _KEYWORDS:
        return f"`{name.lower()}`"
    # Lark numbers the terminals it names itself (`->`, `..`, `//`): show what they match
    pattern = next((t.pattern for t in _lark().terminals if t.name == name), None)
    if isinstance(pattern, PatternStr):
        return f"`{pattern.value}`"
    return name.lower().replace("_", " ")


def _span(source: Source, meta) -> Span:
    return Span(source.name, meta.line, meta.column, meta.end_line, meta.end_column)


def _tok_span(source: Source, tok: Token) -> Span:
    return Span(source.name, tok.line, tok.column, tok.end_line or tok.line,
                tok.end_column or tok.column + len(tok.value))


@v_args(meta=True)
class _Builder(Transformer):
    """Parse tree to syntax.* nodes. Method names are the grammar's rule aliases."""

    def __init__(self, source: Source):
        super().__init__()
        self.src = source

    def sp(self, meta) -> Span:
        return _span(self.src, meta)

    def ts(self, tok: Token) -> Span:
        return _tok_span(self.src, tok)

    # ---------------------------------------------------------------- top level
    def start(self, meta, children):
        name = None
        decls = []
        imports = []
        for child in children:
            if isinstance(child, tuple) and child and child[0] == "header":
                name = child[1]
            elif isinstance(child, S.Import):
                imports.append(child)
            else:
                decls.append(child)
        span = self.sp(meta) if not meta.empty else self.src.span(1, 1)
        return S.SpecFile(span, name, tuple(decls), tuple(imports))

    def import_decl(self, meta, c):
        return S.Import(self.sp(meta), str(c[1])[1:-1], self.ts(c[1]))

    def header(self, meta, children):
        return ("header", str(children[0]))

    def const_decl(self, meta, c):
        return S.ConstDecl(self.sp(meta), str(c[1]), self.ts(c[1]), c[2], c[3], c[0] is not None)

    def symmetric(self, meta, c):
        return True

    def enum_decl(self, meta, c):
        return S.EnumDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def name_list(self, meta, c):
        return tuple((str(t), self.ts(t)) for t in c)

    def var_decl(self, meta, c):
        kind, init = c[2] or (None, None)
        return S.VarDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1], init, kind == "choice")

    def init_value(self, meta, c):
        return ("value", c[0])

    def init_choice(self, meta, c):
        return ("choice", c[0])

    def action_decl(self, meta, c):
        actor = c[2] or (None, None, None)
        return S.ActionDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1] or (), c[3], actor[0], actor[1], actor[2])

    def process_decl(self, meta, c):
        fair, kw, name, domain, *items = c
        self_name, self_span, dom = (None, None, None) if domain is None else domain
        local = tuple(x for x in items if isinstance(x, S.VarDecl))
        body = tuple(x for x in items if not isinstance(x, S.VarDecl))
        return S.ProcessDecl(self.sp(meta), str(name), self.ts(name), self_name, self_span, dom, local, body, fair)

    def refines_decl(self, meta, c):
        _, name, path, *mapping = c
        return S.RefinesDecl(self.sp(meta), str(name), self.ts(name), str(path)[1:-1], self.ts(path), tuple(mapping))

    def refine_map(self, meta, c):
        return (str(c[0]), self.ts(c[0]), c[1])

    def process_fair(self, meta, c):
        return c[0] or "weak"

    def process_set(self, meta, c):
        return (str(c[0]), self.ts(c[0]), c[1])

    def actor(self, meta, c):
        return (str(c[0]), c[1], self.ts(c[0]))

    def property_decl(self, meta, c):
        return S.PropertyDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def reachable_decl(self, meta, c):
        return S.ReachableDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def fair_decl(self, meta, c):
        strong = c[0] == "strong"
        targets = tuple(x for x in c[1:] if isinstance(x, S.FairTarget))
        gens = tuple(x for x in c[1:] if isinstance(x, S.Generator))
        some = tuple(x for x in c[1:] if isinstance(x, S.FairSome))
        span = self.sp(meta)
        return S.FairDecl(span, f"fair@{span.line}", span, strong, targets, gens, some)

    def fair_some(self, meta, c):
        word, name, domain, cond = c
        if str(word) != "some":
            raise SpecError.single("E001", f"unexpected `{word}` after `for` in a fairness condition", self.ts(word),
                                   f"write `for {name} in ...` (one condition per value) or `for some {name} in ...` "
                                   "(one condition: a step with some value)")
        return S.FairSome(self.sp(meta), S.Generator(self.sp(meta), str(name), domain), cond)

    def weak(self, meta, c):
        return "weak"

    def strong(self, meta, c):
        return "strong"

    def fair_target(self, meta, c):
        name, *args = c
        if args == [None]:
            args = None
        return S.FairTarget(self.sp(meta), str(name), tuple(args) if args is not None else None)

    def fair_arg(self, meta, c):
        return c[0]

    def any_arg(self, meta, c):
        return None

    def theorem_decl(self, meta, c):
        params, body = c[1]
        return S.TheoremDecl(self.sp(meta), str(c[0]), self.ts(c[0]), params, body)

    def forall_untyped(self, meta, c):
        *names, body = c
        return (tuple((str(n), self.ts(n), None) for n in names), body)

    def forall_typed(self, meta, c):
        *params, body = c
        return (tuple(params), body)

    def closed_theorem(self, meta, c):
        return ((), c[0])

    def variant_decl(self, meta, c):
        name, word, parent, desc, *items = c
        if word is not None and str(word) != "extends":
            raise SpecError.single("E001", f"unexpected `{word}` after `variant {name}`", self.ts(word),
                                   f"write `variant {name} extends {parent}:` to build on variant `{parent}`, "
                                   f"or `variant {name} \"what it does\":`")
        text = str(desc)[1:-1] if desc is not None else None
        wrapped = tuple(i if isinstance(i, tuple) else ("add", i) for i in items)
        return S.VariantDecl(self.sp(meta), str(name), self.ts(name), text, wrapped,
                             str(parent) if parent is not None else None,
                             self.ts(parent) if parent is not None else None)

    def replace_item(self, meta, c):
        return ("replace", c[0])

    def remove_item(self, meta, c):
        return ("remove", S.RemoveAction(self.sp(meta), str(c[0]), self.ts(c[0])))

    def extend_item(self, meta, c):
        _, name, *parts = c
        found: dict[str, tuple] = {}
        for kind, keyword, body in parts:
            if kind in found:
                raise SpecError.single("E101", f"`{kind}:` appears twice in `extend action {name}`",
                                       self.ts(keyword), f"put all the statements to add {kind} the action in one `{kind}:`")
            found[kind] = body
        return ("extend", S.ExtendAction(self.sp(meta), str(name), self.ts(name),
                                         found.get("before", ()), found.get("after", ())))

    def before_part(self, meta, c):
        return ("before", c[0], c[1])

    def after_part(self, meta, c):
        return ("after", c[0], c[1])

    def expect_decl(self, meta, c):
        variant, outcome, check = c
        return S.ExpectDecl(self.sp(meta), str(variant), self.ts(variant), outcome,
                            str(check) if check is not None else None,
                            self.ts(check) if check is not None else None)

    def holds(self, meta, c):
        return Expectation.HOLDS

    def violates(self, meta, c):
        return Expectation.VIOLATES

    def proves(self, meta, c):
        return Expectation.PROVES

    def refutes(self, meta, c):
        return Expectation.REFUTES

    def deadlocks(self, meta, c):
        return Expectation.DEADLOCKS

    def action_params(self, meta, c):
        return tuple(c)

    def action_param(self, meta, c):
        return self.generator(meta, c)

    def def_decl(self, meta, c):
        name, *rest = c
        body = rest[-1]
        returns = rest[-2]
        params = tuple(p for p in rest[:-2] if p is not None)
        return S.DefDecl(self.sp(meta), str(name), self.ts(name), params, returns, body)

    def block_decl(self, meta, c):
        _, name, *rest = c
        params = tuple(p for p in rest[:-1] if p is not None)
        return S.BlockDecl(self.sp(meta), str(name), self.ts(name), params, rest[-1])

    def type_decl(self, meta, c):
        return S.TypeDecl(self.sp(meta), str(c[1]), self.ts(c[1]), c[2])

    def def_param(self, meta, c):
        return (str(c[0]), self.ts(c[0]), c[1])

    def deadlock_decl(self, meta, c):
        keyword, word = c
        if str(word) not in _DEADLOCK_WORDS:
            raise SpecError.single("E001", f"unexpected `{word}` after `deadlock:`", self.ts(word),
                                   "write `deadlock: allowed` (a state without successors is not an error) or "
                                   "`deadlock: forbidden` (the default)")
        return S.DeadlockDecl(self.sp(meta), S.DEADLOCK, self.ts(keyword), _DEADLOCK_WORDS[str(word)])

    def init_decl(self, meta, c):
        return S.InitDecl(self.sp(meta), S.INIT, self.ts(c[0]), c[1])

    # ---------------------------------------------------------------- conform:
    def conform_decl(self, meta, c):
        keyword, *lines = c
        return S.ConformDecl(self.sp(meta), S.CONFORM, self.ts(keyword), tuple(lines))

    def _line_span(self, word: Token, last) -> Span:
        """A `conform:` line from its first word to its last token or node (without the line break)."""
        end = last if isinstance(last, Span) else last.span if isinstance(last, S.Node) else self.ts(last)
        return Span(self.src.name, word.line, word.column, end.end_line, end.end_column)

    def _conform_word(self, word: Token, shape: str) -> str:
        """The leading word of a `conform:` line, checked against the line's shape: E001 with
        what the line can be otherwise."""
        text = str(word)
        allowed = _CONFORM_SHAPES[shape]
        if text in allowed:
            return text
        if text in _CONFORM_LINES:
            hint = f"write {_CONFORM_LINES[text]}"
        else:
            close = suggest(text, _CONFORM_LINES)
            hint = (f"did you mean `{close}`? " if close else "") + \
                "a line of `conform:` is one of: " + "; ".join(_CONFORM_LINES.values())
        raise SpecError.single("E001", f"unexpected `{text}` at the start of a line of `conform:`", self.ts(word),
                               hint)

    def conform_map(self, meta, c):
        word, text, *steps = c
        kind = self._conform_word(word, "map")
        if kind == "field" and (len(steps) > 1 or steps[0].args):
            raise SpecError.single("E001", "a `field` line names one variable", steps[0].span if len(steps) == 1
                                   else steps[1].span, "write " + _CONFORM_LINES["field"])
        return S.ConformLine(self._line_span(word, steps[-1]), kind, self.ts(word), ((str(text)[1:-1], self.ts(text)),),
                             tuple(steps))

    def conform_skip(self, meta, c):
        word, text = c
        kind = self._conform_word(word, "skip")
        return S.ConformLine(self._line_span(word, text), kind, self.ts(word), ((str(text)[1:-1], self.ts(text)),))

    def conform_values(self, meta, c):
        word, sort, *pairs = c
        kind = self._conform_word(word, "values")
        return S.ConformLine(self._line_span(word, pairs[-1][3]), kind, self.ts(word), names=((str(sort), self.ts(sort)),),
                             pairs=tuple(pairs))

    def conform_strings(self, meta, c):
        word, *texts = c
        kind = self._conform_word(word, "strings")
        return S.ConformLine(self._line_span(word, texts[-1]), kind, self.ts(word), tuple((str(t)[1:-1], self.ts(t)) for t in texts))

    def conform_names(self, meta, c):
        word, *names = c
        kind = self._conform_word(word, "names")
        return S.ConformLine(self._line_span(word, names[-1]), kind, self.ts(word), names=tuple((str(n), self.ts(n)) for n in names))

    def conform_step(self, meta, c):
        name, *args = c
        args = tuple(a for a in args if a is not None)
        return S.ConformStep(self.sp(meta), str(name), self.ts(name), args)

    def conform_arg(self, meta, c):
        param, text = c
        return (str(param), self.ts(param), str(text)[1:-1], self.ts(text))

    def conform_value(self, meta, c):
        text, member = c
        return (str(text)[1:-1], self.ts(text), str(member), self.ts(member))

    def assume_decl(self, meta, c):
        return S.AssumeDecl(self.sp(meta), str(c[1]), self.ts(c[1]), c[2])

    def invariant_decl(self, meta, c):
        return S.InvariantDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def derived_decl(self, meta, c):
        return S.DerivedDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def constraint_decl(self, meta, c):
        return S.ConstraintDecl(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def inline_expr(self, meta, c):
        return c[0]

    def block_expr(self, meta, c):
        *lets, body = c
        if not lets:
            return body
        return S.LetExpr(self.sp(meta), tuple(lets), body)

    def let_line(self, meta, c):
        return (str(c[0]), self.ts(c[0]), c[1])

    # ---------------------------------------------------------------- types
    def bool_type(self, meta, c):
        return S.BoolType(self.sp(meta))

    def int_type(self, meta, c):
        return S.IntType(self.sp(meta))

    def model_type(self, meta, c):
        return S.ModelType(self.sp(meta))

    def named_type(self, meta, c):
        return S.NamedType(self.sp(meta), str(c[0]))

    def range_type(self, meta, c):
        return S.RangeType(self.sp(meta), c[0], c[1])

    def set_type(self, meta, c):
        return S.SetType(self.sp(meta), c[0])

    def seq_type(self, meta, c):
        return S.SeqType(self.sp(meta), c[0])

    def bounded_seq_type(self, meta, c):
        return S.SeqType(self.sp(meta), c[0], c[1])

    def map_type(self, meta, c):
        return S.MapType(self.sp(meta), c[0], c[1])

    def record_type(self, meta, c):
        return S.RecordType(self.sp(meta), tuple(c))

    def field_type(self, meta, c):
        return (str(c[0]), c[1])

    def tuple_type(self, meta, c):
        return S.TupleType(self.sp(meta), tuple(c))

    def option_type(self, meta, c):
        return S.OptionType(self.sp(meta), c[0])

    # ---------------------------------------------------------------- statements
    def block(self, meta, c):
        return tuple(c)

    def inline_block(self, meta, c):
        return (c[0],)

    def require_stmt(self, meta, c):
        return S.Require(self.sp(meta), c[0])

    def assign_stmt(self, meta, c):
        return S.Assign(self.sp(meta), c[0], c[1])

    def let_stmt(self, meta, c):
        return S.Let(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def await_stmt(self, meta, c):
        return S.Require(self.sp(meta), c[1])

    def goto_stmt(self, meta, c):
        return S.Goto(self.sp(meta), str(c[1]), self.ts(c[1]))

    def labelled_stmt(self, meta, c):
        return S.Labelled(self.sp(meta), str(c[0]), self.ts(c[0]), c[1])

    def while_stmt(self, meta, c):
        return S.While(self.ts(c[0]), c[1], c[2])  # at the keyword: where messages point

    def skip_stmt(self, meta, c):
        return S.Skip(self.sp(meta))

    def block_call(self, meta, c):
        name, *args = c
        return S.BlockCall(self.sp(meta), str(name), self.ts(name), tuple(a for a in args if a is not None))

    def lvalue(self, meta, c):
        name, *steps = c
        return S.LValue(self.sp(meta), str(name), self.ts(name),
                        tuple(s[0] for s in steps), tuple(s[1] for s in steps))

    def index_step(self, meta, c):
        return (c[0], self.sp(meta))

    def field_step(self, meta, c):
        return (str(c[0]), self.sp(meta))

    def if_stmt(self, meta, c):
        cond, body, *rest = c
        orelse = rest.pop() if rest else None
        branches = [(cond, body)] + [b for b in rest if b is not None]
        return S.If(self.sp(meta), tuple(branches), orelse)

    def elif_clause(self, meta, c):
        return (c[0], c[1])

    def else_clause(self, meta, c):
        return c[0]

    def either_stmt(self, meta, c):
        return S.Either(self.sp(meta), tuple(c))

    def or_clause(self, meta, c):
        return c[0]

    def with_stmt(self, meta, c):
        *binders, body = c
        return S.With(self.sp(meta), tuple(binders), body)

    def binder(self, meta, c):
        return self.generator(meta, c)

    # ---------------------------------------------------------------- expressions
    def _bin(self, meta, op, c):
        return S.BinOp(self.sp(meta), op, c[0], c[-1])

    def ite(self, meta, c):
        cond, then, *elifs, orelse = c
        for (elif_meta, elif_cond, elif_then) in reversed(elifs):  # each elif: an if in the else
            span = Span(self.src.name, elif_meta.line, elif_meta.column, meta.end_line, meta.end_column)
            orelse = S.IfExpr(span, elif_cond, elif_then, orelse)
        return S.IfExpr(self.sp(meta), cond, then, orelse)

    def ite_elif(self, meta, c):
        return (meta, c[0], c[1])

    def implies(self, meta, c):
        return self._bin(meta, "implies", c)

    def or_(self, meta, c):
        return self._bin(meta, "or", c)

    def and_(self, meta, c):
        return self._bin(meta, "and", c)

    def not_(self, meta, c):
        return S.Not(self.sp(meta), c[0])

    def always(self, meta, c):
        return S.Temporal(self.sp(meta), "always", c[0])

    def eventually(self, meta, c):
        return S.Temporal(self.sp(meta), "eventually", c[0])

    def leads_to(self, meta, c):
        return S.Temporal(self.sp(meta), "leads_to", c[0], c[1])

    def compare(self, meta, c):
        return S.BinOp(self.sp(meta), str(c[1]), c[0], c[2])

    def member(self, meta, c):
        return self._bin(meta, "in", c)

    def not_member(self, meta, c):
        return self._bin(meta, "notin", c)

    def subset(self, meta, c):
        return self._bin(meta, "subset", c)

    def range(self, meta, c):
        return self._bin(meta, "..", c)

    def union(self, meta, c):
        return self._bin(meta, "|", c)

    def coalesce(self, meta, c):
        return self._bin(meta, "??", c)

    def intersect(self, meta, c):
        return self._bin(meta, "&", c)

    def add(self, meta, c):
        return self._bin(meta, "+", c)

    def sub(self, meta, c):
        return self._bin(meta, "-", c)

    def mul(self, meta, c):
        return self._bin(meta, "*", c)

    def div(self, meta, c):
        return self._bin(meta, "//", c)

    def mod(self, meta, c):
        return self._bin(meta, "%", c)

    def neg(self, meta, c):
        operand = c[0]
        if isinstance(operand, S.IntLit):
            return S.IntLit(self.sp(meta), -operand.value)
        return S.Neg(self.sp(meta), operand)

    def index(self, meta, c):
        return S.Index(self.sp(meta), c[0], c[1])

    def field(self, meta, c):
        return S.Field(self.sp(meta), c[0], str(c[1]))

    def primed(self, meta, c):
        return S.Primed(self.sp(meta), c[0])

    def call(self, meta, c):
        name, args = c
        if args is None:
            return S.Call(self.sp(meta), str(name), self.ts(name), ())
        if isinstance(args, S.Comprehension):
            return S.Call(self.sp(meta), str(name), self.ts(name), (), args)
        return S.Call(self.sp(meta), str(name), self.ts(name), args)

    def plain_args(self, meta, c):
        return tuple(c)

    def generator_args(self, meta, c):
        return self._comprehension(meta, c)

    def _comprehension(self, meta, c):
        element, *rest = c
        cond = rest.pop() if rest and not isinstance(rest[-1], S.Generator) else None
        gens = tuple(g for g in rest if g is not None)
        return S.Comprehension(self.sp(meta), element, gens, cond)

    def generator(self, meta, c):
        names, domain = c
        if isinstance(names, Token):
            return S.Generator(self.sp(meta), str(names), domain)
        return S.Generator(self.sp(meta), names[0], domain, names[1])

    def name_tuple(self, meta, c):
        return ("(" + ", ".join(map(str, c)) + ")", tuple((str(t), self.ts(t)) for t in c))

    def name(self, meta, c):
        return S.Name(self.sp(meta), str(c[0]))

    def int_lit(self, meta, c):
        text = str(c[0])
        if len(text) > 30:
            raise SpecError.single("E005", "integer literal is too large", self.sp(meta),
                                   "integers in specs are at most 30 digits long")
        return S.IntLit(self.sp(meta), int(text))

    def true_lit(self, meta, c):
        return S.BoolLit(self.sp(meta), True)

    def false_lit(self, meta, c):
        return S.BoolLit(self.sp(meta), False)

    def none_lit(self, meta, c):
        return S.NoneLit(self.sp(meta))

    def tuple_lit(self, meta, c):
        return S.TupleLit(self.sp(meta), tuple(c))

    def seq_lit(self, meta, c):
        return S.SeqLit(self.sp(meta), tuple(x for x in c if x is not None))

    def empty_set(self, meta, c):
        return S.SetLit(self.sp(meta), ())

    def empty_map(self, meta, c):
        return S.MapLit(self.sp(meta), ())

    def set_lit(self, meta, c):
        return S.SetLit(self.sp(meta), tuple(c))

    def set_comp(self, meta, c):
        return S.SetComp(self.sp(meta), self._comprehension(meta, c))

    def seq_comp(self, meta, c):
        return S.SeqComp(self.sp(meta), self._comprehension(meta, c))

    def map_comp(self, meta, c):
        key, *rest = c
        return S.MapComp(self.sp(meta), key, self._comprehension(meta, rest))

    def map_lit(self, meta, c):
        return S.MapLit(self.sp(meta), tuple(c))

    def map_entry(self, meta, c):
        return (c[0], c[1])

    def record_lit(self, meta, c):
        return S.RecordLit(self.sp(meta), tuple(c))

    def record_entry(self, meta, c):
        return (str(c[0]), self.ts(c[0]), c[1])
