"""A seeded generator of random, well-typed specs with small finite state spaces.

`generate(seed)` returns a GeneratedSpec: the spec text, whether deadlock checking is on, and
the set of language features the text uses (for the campaign's per-feature tally). The same
seed gives the same spec, byte for byte, on every run and machine (only `random.Random(seed)`
decides).

Guarantees, by construction:
- The spec parses and typechecks (a spec error is a generator bug, and the campaign counts
  it as one).
- The state space is finite and small: every variable whose type holds ints or sequences, or
  is a set of compound values, has a *box* (ints in lo..hi, sets within a small universe,
  sequences of at most 2 or 3 elements), enforced either by a `require` at the end of every
  action or by a `constraint`; the other types (bools, enums, model values, sets and maps of
  them) are finite anyway. The product of the boxes is kept below a few thousand states.
- Evaluation errors are avoided where the generator can: a map's keys are a sort or a small
  range of ints; a map read or assigned by key uses a key of its domain (any key of a full
  map; for a partial map, whose domain grows and shrinks, under `if k in domain(m)`),
  divisors are positive literals, `min`/`max`/`choose` range over sets with a known member,
  `head`/`tail`/positions are guarded by the length. A few percent of the specs deliberately
  risk one (the feature "intended-error"): a division by a variable, `head` of a sequence that
  may be empty, a lookup in a map outside its domain, or a sequence that outgrows its declared
  bound (`seq[T, N]`).
- A variable declared with a range type (`var x: 0..3`) is only assigned `(...) % 4`.

Nested state (about a third of the variables): sets of sets, records, tuples, options and
maps; maps of maps, sequences, records and sets; int-keyed maps; partial maps; sequences of
sets, maps and records; records holding a map. Values are read and assigned along nested paths
(`m[k].f[2] = e`, with the guards each step needs), and a map's entries are assigned in the
ways the generated code treats apart: by an action parameter or `with` binder over its keys,
by a computed key, twice, in some branches only, before or after assigning the whole map.

`choose` and sequence comprehensions also range over several generators, tuples, the subsets
of a small set, options and sets of nested values (sets, records, tuples, maps, sequences), so
that tlacheck's canonical order on them is observable (the reference explorer shares
runtime.canon with tlacheck: only TLC, through the translation's explicit order operators,
checks it independently).

About a fifth of the specs have one or two `reachable` checks: some may hold, some cannot (a
state outside a box, a state the random constraint cuts off, a contradiction).

Not covered: variants and `expect`, theorems (not explored); temporal formulas under
`not`/`or` (rejected, E114); `by` actors (display only).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import product
from math import prod


@dataclass(frozen=True)
class GeneratedSpec:
    seed: int
    text: str
    check_deadlock: bool
    features: frozenset[str]


# ---------------------------------------------------------------- types
# ("int", lo, hi) (the box), ("bool",), ("sort", name, members), ("set", elem, universe),
# ("seq", elem, maxlen), ("map", key, value) (the key a sort or ("int", lo, hi); the domain is
# every key), ("pmap", key, value) (a map whose domain is any subset of the keys: it grows and
# shrinks), ("rec", ((field, type), ...)), ("tup", (type, ...)), ("opt", inner). A set's universe
# is a list of literals of its element type: its box (for compound elements, a few values).

BOOL = ("bool",)
SCALARS = ("int", "bool", "sort")
CONTAINERS = {"set": "set", "seq": "seq", "map": "map", "pmap": "map", "rec": "record", "tup": "tuple",
              "opt": "option"}


def parts(t) -> list:
    """The types directly inside `t`."""
    k = t[0]
    if k in ("set", "seq", "opt"):
        return [t[1]]
    if k in ("map", "pmap"):
        return [t[1], t[2]]
    if k == "rec":
        return [ft for _, ft in t[1]]
    if k == "tup":
        return list(t[1])
    return []


def base(t) -> tuple:
    """The static type of `t` (boxes and bounds dropped): what the type checker sees."""
    k = t[0]
    if k == "int":
        return ("int",)
    if k == "sort":
        return ("sort", t[1])
    if k == "set":
        return ("set", base(t[1]))
    if k == "seq":
        return ("seq", base(t[1]))
    if k in ("map", "pmap"):
        return ("map", base(t[1]), base(t[2]))
    if k == "rec":
        return ("rec", tuple((f, base(ft)) for f, ft in t[1]))
    if k == "tup":
        return ("tup", tuple(base(x) for x in t[1]))
    if k == "opt":
        return ("opt", base(t[1]))
    return t


def shape(t) -> tuple:
    """The static type of `t` with what decides which reads of its values are safe: whether a
    map's domain is every key ("map") or any subset ("pmap"), and an int key's range. A name
    stands for an expression of type t only if their shapes are equal."""
    k = t[0]
    if k in ("map", "pmap"):
        key = t[1][:3] if t[1][0] == "int" else shape(t[1])
        return (k, key, shape(t[2]))
    if k in ("set", "seq", "opt"):
        return (k, shape(t[1]))
    if k == "rec":
        return ("rec", tuple((f, shape(ft)) for f, ft in t[1]))
    if k == "tup":
        return ("tup", tuple(shape(x) for x in t[1]))
    return base(t)


def tytext(t, declared: bool = False) -> str:
    k = t[0]
    if k == "int":
        return f"{t[1]}..{t[2]}" if declared and len(t) > 3 else "int"
    if k == "bool":
        return "bool"
    if k == "sort":
        return t[1]
    if k == "set":
        return f"set[{tytext(t[1])}]"
    if k == "seq":
        return f"seq[{tytext(t[1])}, {t[2]}]" if declared and len(t) > 3 else f"seq[{tytext(t[1])}]"
    if k in ("map", "pmap"):
        return f"map[{tytext(t[1])}, {tytext(t[2])}]"
    if k == "rec":
        return "{" + ", ".join(f"{f}: {tytext(ft)}" for f, ft in t[1]) + "}"
    if k == "tup":
        return "(" + ", ".join(tytext(x) for x in t[1]) + ")"
    return f"{tytext(t[1])}?"


def num(v: int) -> str:
    return f"({v})" if v < 0 else str(v)


def universe(t) -> list[str]:
    """Every value of a small scalar type or option of one, as literals (ints: the box)."""
    k = t[0]
    if k == "int":
        return [num(i) for i in range(t[1], t[2] + 1)]
    if k == "bool":
        return ["false", "true"]
    if k == "sort":
        return list(t[2])
    if k == "opt":
        return ["none"] + universe(t[1])
    raise AssertionError(t)


def dom_text(key) -> str:
    """The set of every key of a map with keys of type `key`: a sort's name, or a range."""
    return key[1] if key[0] == "sort" else f"{num(key[1])}..{num(key[2])}"


def empty_dom(key) -> str:
    """An empty set of keys of type `key` (typed: `{}` alone would need a context)."""
    return f"({key[1]} - {key[1]})" if key[0] == "sort" else "(1..0)"


def empty_map(t) -> str:
    """The empty map of type t (there is no empty map literal: a comprehension over no key)."""
    return f"{{k0 -> {values(t[2])[-1]} for k0 in {empty_dom(t[1])}}}"


def values(t) -> list[str]:
    """Every value of t's box, as literals, each value once (for small boxes: see size)."""
    k = t[0]
    if k in ("int", "bool", "sort", "opt"):
        return universe(t)
    if k == "set":
        members = t[2] or universe(t[1])
        return ["{" + ", ".join(m for i, m in enumerate(members) if n >> i & 1) + "}" for n in range(2 ** len(members))]
    if k == "seq":
        out, layer = [()], [()]
        for _ in range(t[2]):
            layer = [s + (v,) for s in layer for v in values(t[1])]
            out += layer
        return ["[" + ", ".join(s) + "]" for s in out]
    if k == "map":
        combos = product(*[values(t[2])] * len(universe(t[1])))
        return ["{" + ", ".join(f"{kk} -> {v}" for kk, v in zip(universe(t[1]), c)) + "}" for c in combos]
    if k == "pmap":
        keys, out = universe(t[1]), []
        for n in range(2 ** len(keys)):
            chosen = [kk for i, kk in enumerate(keys) if n >> i & 1]
            if not chosen:
                out.append(empty_map(t))
            for c in product(*[values(t[2])] * len(chosen)) if chosen else ():
                out.append("{" + ", ".join(f"{kk} -> {v}" for kk, v in zip(chosen, c)) + "}")
        return out
    if k in ("rec", "tup"):
        fields = t[1] if k == "rec" else [(None, x) for x in t[1]]
        combos = product(*[values(ft) for _, ft in fields])
        if k == "rec":
            return ["{" + ", ".join(f"{f}: {v}" for (f, _), v in zip(fields, c)) + "}" for c in combos]
        return ["(" + ", ".join(c) + ")" for c in combos]
    raise AssertionError(t)


def size(t) -> int:
    """How many values the box of `t` holds."""
    k = t[0]
    if k in ("int", "bool", "sort", "opt"):
        return len(universe(t))
    if k == "set":
        return 2 ** len(t[2] or universe(t[1]))
    if k == "seq":
        n = size(t[1])
        return sum(n ** i for i in range(t[2] + 1))
    if k == "map":
        return size(t[2]) ** len(universe(t[1]))
    if k == "pmap":
        return (size(t[2]) + 1) ** len(universe(t[1]))
    if k == "rec":
        return prod(size(ft) for _, ft in t[1])
    return prod(size(x) for x in t[1])


def needs_box(t) -> bool:
    """Whether a variable of type `t` could take infinitely (or, for sets of compound values,
    too) many values without a box."""
    k = t[0]
    if k == "int":
        return len(t) < 4  # a declared range is kept by its assignments
    if k == "seq":
        return True
    if k == "set":
        return needs_box(t[1]) or t[1][0] not in SCALARS
    if k in ("map", "pmap"):
        return needs_box(t[2])
    return any(needs_box(x) for x in parts(t))


@dataclass
class _Name:
    name: str
    type: tuple
    kind: str  # "var", "const", "local"
    dom: str | None = None  # a bound name ranging over exactly this set (a map's keys: dom_text)


@dataclass
class _Def:
    name: str
    params: list[tuple[str, tuple]]
    returns: tuple
    reads_state: bool
    recursive: bool  # the first parameter is an int that must decrease: called with `arg % 4`


@dataclass
class _Ctx:
    names: list[_Name]
    state: bool  # state variables may be read (and state-reading defs called)
    defs: list[_Def]

    def with_name(self, name: str, t, dom: str | None = None) -> "_Ctx":
        return _Ctx(self.names + [_Name(name, t, "local", dom)], self.state, self.defs)


NESTED = 0.35  # the share of state variables with a nested type
ENUM_MEMBERS = [["red", "green", "blue"], ["idle", "busy", "done"], ["low", "high"]]
ENUM_NAMES = ["Color", "Phase", "Level"]
MODEL_MEMBERS = ["n1", "n2", "n3"]


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.seed = seed
        self.features: set[str] = set()
        self.counter = 0
        self.sorts: list[tuple] = []
        self.consts: list[_Name] = []
        self.vars: list[_Name] = []
        self.defs: list[_Def] = []
        self.lines: list[str] = []

    # ---------------------------------------------------------------- helpers
    def feat(self, *names: str) -> None:
        self.features.update(names)

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def int_lit(self, lo: int = -3, hi: int = 4) -> str:
        v = self.r.randint(lo, hi)
        if v < 0:
            self.feat("negative-int")
            return f"({v})"
        return str(v)

    # ---------------------------------------------------------------- declarations
    def declare_sorts(self) -> None:
        n_enums = self.r.randint(0, 2)
        for i in self.r.sample(range(3), n_enums):
            members = ENUM_MEMBERS[i][: self.r.randint(2, len(ENUM_MEMBERS[i]))]
            self.sorts.append(("sort", ENUM_NAMES[i], tuple(members)))
            self.lines.append(f"enum {ENUM_NAMES[i]} {{ {', '.join(members)} }}")
            self.feat("enum")
        if self.chance(0.5) or not self.sorts:
            members = MODEL_MEMBERS[: self.r.randint(2, 3)]
            self.sorts.append(("sort", "Node", tuple(members)))
            self.lines.append(f"const Node: set[model] = {{{', '.join(members)}}}")
            self.feat("model-values")
        if self.chance(0.4):
            n = self.r.randint(1, 3)
            self.consts.append(_Name("N", ("int", n, n), "const"))
            self.lines.append(f"const N: int = {n}")
            self.feat("const")
        if self.chance(0.3):
            members = sorted(self.r.sample(range(-1, 4), self.r.randint(1, 3)))
            t = ("set", ("int", min(members), max(members)), [str(m) for m in members])
            self.consts.append(_Name("Vals", t, "const"))
            self.lines.append(f"const Vals: set[int] = {{{', '.join(f'({m})' if m < 0 else str(m) for m in members)}}}")
            self.feat("const", "const-set")

    def random_type(self, depth: int = 0):
        if depth == 0 and self.chance(NESTED):
            return self.nested_type()
        r = self.r.random()
        sort = self.pick(self.sorts)
        small_int = ("int", self.r.randint(-2, 0), self.r.randint(1, 3))
        if depth > 0 or r < 0.30:
            return self.pick([small_int, small_int, BOOL, sort])
        if r < 0.40:
            return ("set", ("int", 0, 2), ["0", "1", "2"]) if self.chance(0.5) else ("set", sort, list(sort[2]))
        if r < 0.52:
            return ("seq", self.pick([("int", 0, 1), sort, BOOL]), self.r.randint(1, 2))
        if r < 0.66:
            key = self.pick(self.sorts)
            value = self.pick([("int", 0, 2), BOOL, sort, ("opt", ("int", 0, 1)),
                               ("rec", (("c", ("int", 0, 1)), ("f", BOOL)))])
            if len(key[2]) == 3 and size(value) > 4:
                value = BOOL
            return ("map", key, value)
        if r < 0.76:
            return ("rec", (("a", ("int", 0, 2)), ("b", self.pick([BOOL, sort]))))
        if r < 0.86:
            return ("tup", (("int", -1, 1), self.pick([BOOL, sort])))
        return ("opt", self.pick([("int", 0, 2), sort]))

    def key_type(self, small: bool = False):
        """The key type of a map: a sort, or a small range of ints (at most 2 keys if `small`)."""
        sorts = [s for s in self.sorts if not small or len(s[2]) <= 2]
        if sorts and self.chance(0.6):
            return self.pick(sorts)
        lo = self.pick([0, 0, -1, 1])
        return ("int", lo, lo + (1 if small or self.chance(0.5) else 2))

    def small_set_type(self):
        """A set of ints or of a sort's members, with every member in its universe."""
        if self.chance(0.5):
            return ("set", ("int", 0, 1), ["0", "1"])
        sort = self.pick(self.sorts)
        return ("set", sort, list(sort[2]))

    def set_of(self, elem) -> tuple:
        """A set of compound values: its universe is 2 or 3 values of the element's box."""
        vs = values(elem)
        return ("set", elem, self.r.sample(vs, min(len(vs), self.r.randint(2, 3))))

    def nested_type(self):
        """A state variable's type with collections inside collections (see the module docstring)."""
        sort = self.pick(self.sorts)
        small = lambda: self.pick([("int", 0, 1), BOOL, sort])  # noqa: E731 - a local shorthand
        kind = self.pick(["set-set", "set-rec", "set-tup", "set-opt", "set-map", "map-map", "map-int", "pmap",
                          "map-seq", "map-rec", "map-set", "seq-set", "seq-map", "seq-rec", "rec-map", "pmap-nested"])
        if kind == "set-set":
            return self.set_of(self.small_set_type())
        if kind == "set-rec":
            return self.set_of(("rec", (("a", ("int", 0, 1)), ("b", self.pick([BOOL, sort])))))
        if kind == "set-tup":
            return self.set_of(("tup", (self.pick([("int", 0, 1), ("int", -1, 0)]), self.pick([BOOL, sort]))))
        if kind == "set-opt":
            return self.set_of(("opt", ("int", 0, 2)))
        if kind == "set-map":
            return self.set_of(("map", self.key_type(small=True), self.pick([BOOL, ("int", 0, 1)])))
        if kind == "map-map":
            return ("map", self.key_type(), ("map", self.key_type(small=True), self.pick([BOOL, ("int", 0, 1)])))
        if kind == "map-int":
            lo = self.pick([0, 0, -1])
            return ("map", ("int", lo, lo + self.r.randint(1, 2)), self.pick([("int", 0, 2), BOOL, sort]))
        if kind == "pmap":
            return ("pmap", self.key_type(), small())
        if kind == "map-seq":
            return ("map", self.key_type(small=True), ("seq", self.pick([("int", 0, 1), BOOL]), self.r.randint(1, 2)))
        if kind == "map-rec":
            second = self.pick([("s", self.small_set_type()), ("q", ("seq", ("int", 0, 1), 1))])
            return ("map", self.key_type(small=True), ("rec", (("c", ("int", 0, 1)), second)))
        if kind == "map-set":
            return ("map", self.key_type(small=True), self.small_set_type())
        if kind == "seq-set":
            return ("seq", self.small_set_type(), self.r.randint(1, 2))
        if kind == "seq-map":
            return ("seq", ("map", self.key_type(small=True), BOOL), self.r.randint(1, 2))
        if kind == "seq-rec":
            return ("seq", ("rec", (("a", ("int", 0, 1)), ("b", BOOL))), 2)
        if kind == "rec-map":
            m = self.pick([("map", self.key_type(small=True), self.pick([BOOL, ("int", 0, 1)])),
                           ("pmap", self.key_type(), BOOL)])
            return ("rec", (("m", m), ("s", self.small_set_type())))
        return ("pmap", self.key_type(small=True), self.pick([("seq", ("int", 0, 1), 2),
                                                              ("rec", (("c", ("int", 0, 1)), ("f", BOOL)))]))

    def note_type(self, t, top: bool = True) -> None:
        k = t[0]
        self.feat({"int": "int", "bool": "bool", "sort": "sort", "set": "set", "seq": "seq", "map": "map",
                   "pmap": "map", "rec": "record", "tup": "tuple", "opt": "option"}[k])
        if k in ("map", "pmap") and t[1][0] == "int":
            self.feat("map-int-keys")
        if k == "pmap":
            self.feat("map-partial")
        inner = parts(t)[1:] if k in ("map", "pmap") else parts(t)
        for sub in inner:
            if k in CONTAINERS and sub[0] in CONTAINERS:
                self.feat(f"{CONTAINERS[k]}-of-{CONTAINERS[sub[0]]}s", "nested-type")
            self.note_type(sub, False)

    def declare_vars(self) -> None:
        names = ["x", "y", "z", "w"]
        self.unvalued = False  # a variable declared without a value: `init:` follows
        for _ in range(50):
            n = self.r.randint(1, 4)
            types = [self.random_type() for _ in range(n)]
            if prod(size(t) for t in types) <= 3000:
                break
        else:  # pragma: no cover - the loop finds small types in a few tries
            types = [BOOL]
        for name, t in zip(names, types):
            self.note_type(t)
            if t[0] == "int" and t[1] == 0 and self.chance(0.3):
                t = ("int", 0, t[2], "range")  # declared `0..hi`: every assignment is `% (hi + 1)`
                self.feat("range-type")
            elif t[0] == "seq" and self.risk_error and not self.intended_error and self.chance(0.5):
                t = ("seq", t[1], t[2], "bounded")  # declared `seq[T, N]`: an append may outgrow it (E410)
                self.intended_error = True
                self.feat("bounded-seq", "intended-error")
            ctx = _Ctx(self.consts + self.vars, False, [])
            if (t[0] in ("bool", "sort") or t[0] == "int" and len(t) == 4 and t[3] == "range") and self.chance(0.15):
                init = ""  # every value of its type, which the `init:` predicate below filters
                self.feat("init-predicate", "init-every-value")
                self.unvalued = True
            elif self.chance(0.25) and t[0] in ("int", "bool", "sort", "opt"):
                choices = self.r.sample(universe(t), min(len(universe(t)), self.r.randint(1, 3)))
                init = f" in {{{', '.join(choices)}}}"
                self.feat("init-choice")
                if len(choices) > 1:
                    self.feat("init-several")
            elif self.chance(0.3) and t[0] not in ("int", "bool", "sort", "opt"):
                box = values(t) if size(t) <= 512 else [self.lit(t) for _ in range(3)]
                choices = self.r.sample(box, min(len(box), self.r.randint(1, 3)))
                init = f" in {{{', '.join(choices)}}}"
                self.feat("init-choice", "init-choice-nested")
                if len(choices) > 1:
                    self.feat("init-several")
            elif self.vars and len(t) < 4 and self.chance(0.25) and (t[0] == "int" or not needs_box(t)):
                value = self.expr(t, ctx, 1)
                if t[0] == "int":  # inside the box, so that the initial state is explored
                    value = f"({value}) % {t[2] - t[1] + 1} + {self.num(t[1])}"
                init = f" = {value}"
                self.feat("init-reads-earlier")
            else:
                init = f" = {self.lit(t)}"
            self.vars.append(_Name(name, t, "var"))
            self.lines.append(f"var {name}: {tytext(t, declared=True)}{init}")
        if self.unvalued or self.chance(0.05):
            # `init: P`: the initial states are the combinations of the variables' values that satisfy P
            # (TLA+'s Init with a filter); P may be unsatisfiable, which leaves no initial state
            self.feat("init-predicate")
            self.lines.append(f"init: {self.expr(BOOL, self.state_ctx(), 2)}")

    # ---------------------------------------------------------------- literals and boxes
    def lit(self, t, empty: bool = True) -> str:
        """A literal of t's box; `empty`: sets and sequences may be `{}` and `[]` (which need a
        type from their context)."""
        k = t[0]
        if k in ("int", "bool", "sort"):
            v = self.pick(universe(t))
            return f"({v})" if v.startswith("-") else v
        if k == "opt":
            return "none" if self.chance(0.4) else self.lit(t[1])
        if k == "set":
            members = self.members(t)
            return "{" + ", ".join(self.r.sample(members, self.r.randint(0 if empty else 1, len(members)))) + "}"
        if k == "seq":
            return "[" + ", ".join(self.lit(t[1], empty) for _ in range(self.r.randint(0 if empty else 1, t[2]))) + "]"
        if k == "map":
            return "{" + ", ".join(f"{m} -> {self.lit(t[2], empty)}" for m in universe(t[1])) + "}"
        if k == "pmap":
            keys = self.r.sample(universe(t[1]), self.r.randint(0, len(universe(t[1]))))
            if not keys:
                return empty_map(t)
            return "{" + ", ".join(f"{m} -> {self.lit(t[2], empty)}" for m in sorted(keys)) + "}"
        if k == "rec":
            return "{" + ", ".join(f"{f}: {self.lit(ft, empty)}" for f, ft in t[1]) + "}"
        return "(" + ", ".join(self.lit(x, empty) for x in t[1]) + ")"

    def members(self, t) -> list[str]:
        """The universe of set type t: its own, or for a set made up by an expression, all the
        values of a scalar element type (ints: 0..2), or a few of a compound one."""
        if t[2]:
            return t[2]
        elem = t[1]
        if elem[0] == "int":
            return ["0", "1", "2"]
        if elem[0] in SCALARS or elem[0] == "opt":
            return universe(elem)
        box = values(elem) if size(elem) <= 64 else list(dict.fromkeys(self.lit(elem) for _ in range(3)))
        return self.r.sample(box, min(len(box), 3))

    def box(self, t, e: str) -> str | None:
        """A predicate that `e` (an expression of type t) is in t's box; None: always."""
        k = t[0]
        if k == "int":
            return f"({e} >= {self.num(t[1])} and {e} <= {self.num(t[2])})"
        if k == "set":
            if not needs_box(t):
                return None
            return f"({e} subset {{{', '.join(t[2])}}})"
        if k == "seq":
            q = self.fresh("q")
            inner = self.box(t[1], q)
            test = f"len({e}) <= {t[2]}"
            if inner is not None:
                test += f" and all({inner} for {q} in elems({e}))"
            return f"({test})"
        if k in ("map", "pmap"):
            q = self.fresh("q")
            inner = self.box(t[2], f"{e}[{q}]")
            return None if inner is None else f"all({inner} for {q} in domain({e}))"
        if k in ("rec", "tup"):
            fields = t[1] if k == "rec" else [(str(i + 1), x) for i, x in enumerate(t[1])]
            tests = [self.box(ft, f"{e}.{f}" if k == "rec" else f"{e}[{f}]") for f, ft in fields]
            tests = [x for x in tests if x is not None]
            return f"({' and '.join(tests)})" if tests else None
        if k == "opt":
            inner = self.box(t[1], f"({e} ?? {self.lit(t[1]) if t[1][0] != 'int' else self.num(t[1][1])})")
            return None if inner is None else inner
        return None

    num = staticmethod(num)

    # ---------------------------------------------------------------- expressions
    def refs(self, ctx: _Ctx, t) -> list[str]:
        b = shape(t)
        return [n.name for n in ctx.names if shape(n.type) == b and (ctx.state or n.kind != "var")]

    def sets_of(self, ctx: _Ctx, elem) -> list[str]:
        """Names of sets whose elements have the static type of `elem`."""
        return self.refs(ctx, ("set", elem, []))

    def expr(self, t, ctx: _Ctx, d: int) -> str:
        """A random expression of type t (static type base(t)), depth at most d."""
        k = t[0]
        refs = self.refs(ctx, t)
        if refs and self.chance(0.35):  # names (state variables above all) keep conditions state-dependent
            return self.pick(refs)
        if d <= 0 or self.chance(0.25):
            if refs and self.chance(0.7):
                return self.pick(refs)
            return self.lit_expr(t)
        calls = [f for f in ctx.defs if base(f.returns) == base(t) and (ctx.state or not f.reads_state)]
        if calls and self.chance(0.15):
            return self.call(self.pick(calls), ctx, d - 1)
        if self.chance(0.08):
            self.feat("if-expr")
            return f"(if {self.expr(BOOL, ctx, d - 1)} then {self.expr(t, ctx, d - 1)} else {self.expr(t, ctx, d - 1)})"
        method = getattr(self, f"e_{k}")
        return method(t, ctx, d)

    def lit_expr(self, t) -> str:
        if t[0] == "int":
            return self.int_lit()
        if t[0] == "set" and t[1][0] == "sort" and self.chance(0.3):
            return t[1][1]
        return self.lit(t, empty=False)

    def call(self, f: _Def, ctx: _Ctx, d: int) -> str:
        self.feat("def-call")
        args = []
        for i, (_, pt) in enumerate(f.params):
            a = self.expr(pt, ctx, min(d, 1))
            if f.recursive and i == 0:
                a = f"(({a}) % 4)"
            args.append(a)
        return f"{f.name}({', '.join(args)})"

    def e_int(self, t, ctx: _Ctx, d: int) -> str:
        r = self.r.random()
        sub = lambda: self.expr(("int", 0, 2), ctx, d - 1)  # noqa: E731 - a local shorthand
        if r < 0.30:
            return f"({sub()} {self.pick(['+', '-', '+'])} {sub()})"
        if r < 0.36:
            self.feat("mul")
            return f"({sub()} * {self.int_lit(-2, 3)})"
        if r < 0.44:
            self.feat("div-mod")
            return f"({sub()} {self.pick(['//', '%'])} {self.r.randint(1, 4)})"
        if r < 0.47:
            self.feat("negation")
            return f"(-{sub()})"
        if r < 0.54:
            if self.chance(0.5):
                self.feat("len-seq")
                return f"len({self.expr(('seq', ('int', 0, 1), 2), ctx, d - 1)})"
            self.feat("len-set")
            return f"len({self.set_expr(ctx, d - 1)})"
        if r < 0.60:
            self.feat("sum")
            elem = self.elem_type()
            q = self.fresh("q")
            inner = ctx.with_name(q, elem)
            cond = f" if {self.expr(BOOL, inner, 1)}" if self.chance(0.4) else ""
            return f"sum({self.expr(('int', 0, 2), inner, 1)} for {q} in {self.expr(('set', elem, []), ctx, d - 1)}{cond})"
        if r < 0.66:
            op = self.pick(["min", "max"])
            self.feat(op)
            return f"{op}({self.expr(('set', ('int', 0, 2), []), ctx, d - 1)} | {{{self.int_lit()}}})"
        if r < 0.72:
            self.feat("choose")
            return self.choose_int(ctx, d)
        if r < 0.80:
            return self.project(t, ctx, d)
        if r < 0.84:
            self.feat("powerset")
            return f"len(powerset({self.expr(('set', ('int', 0, 2), []), ctx, 1)}))"
        if r < 0.86:
            self.feat("maps")
            sort = self.pick(self.sorts)
            return f"len(maps({sort[1]}, {{{', '.join(self.r.sample(['0', '1', '2'], self.r.randint(1, 2)))}}}))"
        return f"({sub()} + {sub()})"

    def choose_int(self, ctx: _Ctx, d: int) -> str:
        """An int picked by `choose`: from a set of ints, or (so that the canonical order of
        bindings, tuples, sets and options is observable) from several generators, a set of
        tuples, the subsets of a small set, or a set of options. The candidates always include
        a value that satisfies the condition."""
        if self.chance(0.3):
            return self.choose_nested(ctx, d)
        k = self.r.random()
        q = self.fresh("q")
        c = self.int_lit()
        small = ("int", 0, 2)
        if k < 0.4:
            inner = ctx.with_name(q, small)
            return (f"choose({q} for {q} in ({self.expr(('set', small, []), ctx, d - 1)} | {{{c}}}) "
                    f"if {self.expr(BOOL, inner, 1)} or {q} == {c})")
        if k < 0.6:
            self.feat("choose-several-generators")
            q2, c2 = self.fresh("q"), self.int_lit(0, 2)
            inner = ctx.with_name(q, small)
            s2 = self.expr(("set", small, []), inner, 1)
            inner = inner.with_name(q2, small)
            return (f"choose({q} * 10 + {q2} for {q} in ({self.expr(('set', small, []), ctx, d - 1)} | {{{c}}}) "
                    f"for {q2} in ({s2} | {{{c2}}}) if {self.expr(BOOL, inner, 1)} or ({q} == {c} and {q2} == {c2}))")
        if k < 0.75:
            self.feat("choose-over-sets", "powerset")
            base_set = "{" + ", ".join(self.r.sample(["0", "1", "2"], self.r.randint(1, 3))) + "}"
            inner = ctx.with_name(q, ("set", small, []))
            v = self.fresh("q")
            return (f"sum({v} for {v} in choose({q} for {q} in powerset({base_set}) "
                    f"if {self.expr(BOOL, inner, 1)} or len({q}) == 0))")
        if k < 0.88:
            self.feat("choose-over-tuples", "generators-several")
            a, b = self.fresh("q"), self.fresh("q")
            inner = ctx.with_name(q, ("tup", (small, BOOL)))
            return (f"choose((if {q}[2] then {q}[1] + 10 else {q}[1]) for {q} in "
                    f"{{({a}, {b}) for {a} in ({self.expr(('set', small, []), ctx, 1)} | {{{c}}}) "
                    f"for {b} in {{false, true}}}} if {self.expr(BOOL, inner, 1)} or {q} == ({c}, false))")
        self.feat("choose-over-options", "??")
        inner = ctx.with_name(q, ("opt", small))
        return f"(choose({q} for {q} in {{none, 0, 1, 2}} if {self.expr(BOOL, inner, 1)} or {q} == none) ?? {c})"

    def paths(self, t, depth: int = 3, write: bool = False) -> list[tuple[tuple, tuple]]:
        """Every way into a value of type t, up to `depth` steps: (steps, type reached), the empty
        path first. A step is ("key", key type) into a map, ("pkey", key type) into a partial map
        (guarded by the key's membership), ("field", name), ("index", i) into a tuple, ("pos", i)
        into a sequence (guarded by its length), ("unwrap",) out of an option (`?? d`). With
        `write`, only the steps an assignment may take (keys, fields and positions)."""
        out = [((), t)]
        if depth == 0:
            return out
        k = t[0]
        nexts = []
        if k in ("map", "pmap"):
            nexts.append((("key" if k == "map" else "pkey", t[1]), t[2]))
        elif k == "rec":
            nexts += [(("field", f), ft) for f, ft in t[1]]
        elif k == "tup" and not write:
            nexts += [(("index", i + 1), x) for i, x in enumerate(t[1])]
        elif k == "seq":
            nexts += [(("pos", i), t[1]) for i in range(1, t[2] + 1)]
        elif k == "opt" and not write:
            nexts.append((("unwrap",), t[1]))
        for step, sub in nexts:
            out += [((step,) + more, reached) for more, reached in self.paths(sub, depth - 1, write)]
        return out

    def walk(self, text: str, t, steps: tuple, ctx: _Ctx) -> tuple[str, list[str], tuple]:
        """The expression that follows `steps` into `text` (of type t), the guards that make it
        safe, in order (each may read the ones before), and the type reached."""
        guards = []
        for step in steps:
            kind = step[0]
            if kind in ("key", "pkey"):
                key = self.key_expr(step[1], ctx, 1)
                if kind == "pkey":
                    guards.append(f"{key} in domain({text})")
                text = f"{text}[{key}]"
                t = t[2]
            elif kind == "field":
                text = f"{text}.{step[1]}"
                t = dict(t[1])[step[1]]
            elif kind == "index":
                text = f"{text}[{step[1]}]"
                t = t[1][step[1] - 1]
            elif kind == "pos":
                guards.append(f"len({text}) >= {step[1]}")
                text = f"{text}[{step[1]}]"
                t = t[1]
            else:
                text = f"({text} ?? {self.lit_expr(t[1])})"
                t = t[1]
        return text, guards, t

    def note_path(self, steps: tuple, prefix: str) -> None:
        names = {"key": "map-lookup", "pkey": "map-lookup", "field": "record-field", "index": "tuple-index",
                 "pos": "seq-index", "unwrap": "??"}
        if prefix == "read":
            self.feat(*(names[s[0]] for s in steps))
        if any(s[0] == "pkey" for s in steps):
            self.feat(f"{prefix}-partial-map")
        if len(steps) >= 2:
            self.feat(f"{prefix}-nested", f"{prefix}-path-" + ".".join(s[0] for s in steps))

    def key_expr(self, key, ctx: _Ctx, d: int) -> str:
        """A key of a map with keys of type `key`, in its domain (every key): for a sort any
        value of it; for int keys a name bound to exactly the keys, a literal, or an expression
        folded into the range."""
        if key[0] == "sort":
            return self.expr(key, ctx, d)
        bound = [n.name for n in ctx.names if n.dom == dom_text(key)]
        if bound and self.chance(0.5):
            return self.pick(bound)
        if self.chance(0.4):
            return self.num(self.r.randint(key[1], key[2]))
        shift = f" + {self.num(key[1])}" if key[1] else ""
        return f"(({self.expr(('int', 0, 2), ctx, d)}) % {key[2] - key[1] + 1}{shift})"

    def nested_source(self, ctx: _Ctx) -> tuple[str, tuple]:
        """A set of compound values (a state variable's, or made up) and its element type."""
        sets = [n for n in ctx.names if n.type[0] == "set" and n.type[1][0] not in SCALARS
                and (ctx.state or n.kind != "var")]
        if sets and self.chance(0.7):
            n = self.pick(sets)
            return n.name, n.type[1]
        sort = self.pick(self.sorts)
        elem = self.pick([self.small_set_type(), ("rec", (("a", ("int", 0, 1)), ("b", BOOL))),
                          ("tup", (("int", 0, 1), sort)), ("map", self.key_type(small=True), BOOL),
                          ("opt", ("int", 0, 2)), ("seq", ("int", 0, 1), 2)])
        made = self.expr(("set", elem, []), ctx, 1)
        if elem[0] == "opt":  # `{1, 2}` or `{none}` alone is not a set of options: make it one
            return f"({made} | {{none, {self.lit(elem[1])}}})", elem
        return made, elem

    def choose_nested(self, ctx: _Ctx, d: int) -> str:
        """An int that depends on which element of a set of sets, records, tuples, maps, options
        or sequences `choose` picks: the first in canonical order that satisfies a condition
        (one always does)."""
        src, elem = self.nested_source(ctx)
        self.feat("choose", "choose-over-nested", f"choose-over-{CONTAINERS[elem[0]]}s")
        c = self.lit(elem, empty=False)
        q = self.fresh("q")
        inner = ctx.with_name(q, elem)
        picked = f"choose({q} for {q} in ({src} | {{{c}}}) if {self.expr(BOOL, inner, 1)} or {q} == {c})"
        return self.int_of(picked, elem, ctx)

    def int_of(self, text: str, t, ctx: _Ctx) -> str:
        """An int that tells values of type t apart: a number inside `text`, or an equality."""
        found = [steps for steps, reached in self.paths(t, 2) if steps and reached[0] in ("int", "bool")]
        if found and self.chance(0.6):
            inside, guards, reached = self.walk(text, t, self.pick(found), ctx)
            value = inside if reached[0] == "int" else f"(if {inside} then 1 else 0)"
            return f"(if {' and '.join(guards)} then {value} else 7)" if guards else value
        return f"(if {text} == {self.lit(t, empty=False)} then 1 else 0)"

    def project(self, t, ctx: _Ctx, d: int) -> str:
        """A value of type t read out of a container, along a path of map keys, record fields,
        tuple and sequence positions and option values (paths), guarded where a step may fail."""
        want = shape(t)
        options = [(n, steps) for n in ctx.names if ctx.state or n.kind != "var"
                   for steps, reached in self.paths(n.type) if steps and shape(reached) == want]
        if not options:
            return self.lit_expr(t)
        n, steps = self.pick(options)
        if len(steps) == 1 and steps[0][0] == "pos" and steps[0][1] == 1 and self.chance(0.5):
            self.feat("head")
            return f"(if {n.name} != [] then head({n.name}) else {self.lit_expr(t)})"
        self.note_path(steps, "read")
        text, guards, _ = self.walk(n.name, n.type, steps, ctx)
        if guards:
            return f"(if {' and '.join(guards)} then {text} else {self.lit_expr(t)})"
        return text

    def elem_type(self):
        return self.pick([("int", 0, 2), self.pick(self.sorts)])

    def set_expr(self, ctx: _Ctx, d: int) -> str:
        return self.expr(("set", self.elem_type(), []), ctx, d)

    def e_bool(self, t, ctx: _Ctx, d: int) -> str:
        r = self.r.random()
        sub = lambda: self.expr(BOOL, ctx, d - 1)  # noqa: E731
        if r < 0.10:
            self.feat("not")
            return f"(not {sub()})"
        if r < 0.24:
            op = self.pick(["and", "or", "implies", "and", "or"])
            self.feat(op)
            return f"({sub()} {op} {sub()})"
        if r < 0.42:
            i = ("int", 0, 2)
            right = self.int_lit(-1, 3) if self.chance(0.5) else self.expr(i, ctx, d - 1)
            return f"({self.expr(i, ctx, d - 1)} {self.pick(['<', '<=', '>', '>=', '==', '!='])} {right})"
        if r < 0.54:
            et = self.pick([self.pick(self.sorts), ("int", 0, 2), BOOL] + [n.type for n in ctx.names])
            self.feat("equality")
            left = self.expr(et, ctx, d - 1)
            if et[0] == "opt":  # `none == v` needs an option on the other side: a name of that type
                left = self.pick(self.refs(ctx, et) or [self.lit(et[1])])
            right = self.lit_expr(et) if self.chance(0.5) else self.expr(et, ctx, d - 1)
            return f"({left} {self.pick(['==', '!='])} {right})"
        if r < 0.64:
            elem = self.elem_type()
            self.feat("in")
            return (f"({self.expr(elem, ctx, d - 1)} {self.pick(['in', 'not in'])} "
                    f"{self.expr(('set', elem, []), ctx, d - 1)})")
        if r < 0.68:
            elem = self.elem_type()
            self.feat("subset")
            return f"({self.expr(('set', elem, []), ctx, d - 1)} subset {self.expr(('set', elem, []), ctx, d - 1)})"
        if r < 0.80:
            q = self.pick(["all", "any"])
            self.feat(q)
            elem = self.elem_type()
            v = self.fresh("q")
            inner = ctx.with_name(v, elem)
            gens = f"for {v} in {self.expr(('set', elem, []), ctx, d - 1)}"
            if self.chance(0.25):
                v2 = self.fresh("q")
                gens += f" for {v2} in {self.expr(('set', ('int', 0, 2), []), inner, 1)}"
                inner = inner.with_name(v2, ("int", 0, 2))
                self.feat("generators-several")
            cond = f" if {self.expr(BOOL, inner, 1)}" if self.chance(0.3) else ""
            return f"{q}({self.expr(BOOL, inner, d - 1)} {gens}{cond})"
        if r < 0.86:
            opts = [n for n in ctx.names if n.type[0] == "opt" and (ctx.state or n.kind != "var")]
            if opts:
                self.feat("none-test")
                return f"({self.pick(opts).name} {self.pick(['==', '!='])} none)"
            return self.lit_expr(BOOL)
        if r < 0.90:
            maps = [n for n in ctx.names if n.type[0] == "map" and n.type[2][0] in ("int", "bool", "sort")
                    and (ctx.state or n.kind != "var")]
            if maps:
                self.feat("maps", "maps-membership")
                m = self.pick(maps)
                return f"({m.name} in maps({dom_text(m.type[1])}, {{{', '.join(universe(m.type[2])[:2])}}}))"
            self.feat("powerset", "powerset-membership")
            elem = self.elem_type()
            return f"({self.expr(('set', elem, []), ctx, 1)} in powerset({self.expr(('set', elem, []), ctx, 1)}))"
        return self.project(t, ctx, d)

    def e_sort(self, t, ctx: _Ctx, d: int) -> str:
        r = self.r.random()
        if r < 0.3:
            self.feat("choose")
            q = self.fresh("q")
            inner = ctx.with_name(q, t)
            c = self.pick(list(t[2]))
            return f"choose({q} for {q} in {t[1]} if {self.expr(BOOL, inner, 1)} or {q} == {c})"
        return self.project(t, ctx, d)

    def e_opt(self, t, ctx: _Ctx, d: int) -> str:
        if self.chance(0.5):
            return self.expr(t[1], ctx, d - 1)
        return "none" if self.chance(0.5) else self.lit(t, empty=False)

    def e_set(self, t, ctx: _Ctx, d: int) -> str:
        elem = t[1]
        r = self.r.random()
        sub = lambda: self.expr(t, ctx, d - 1)  # noqa: E731
        if r < 0.25:
            op = self.pick(["|", "&", "-"])
            self.feat({"|": "union", "&": "intersection", "-": "difference"}[op])
            return f"({sub()} {op} {sub()})"
        if r < 0.45:
            self.feat("set-comprehension")
            src = self.pick([("int", 0, 2), self.pick(self.sorts)])
            q = self.fresh("q")
            inner = ctx.with_name(q, src)
            cond = f" if {self.expr(BOOL, inner, 1)}" if self.chance(0.5) else ""
            body = q if base(src) == base(elem) and self.chance(0.5) else self.expr(elem, inner, 1)
            return f"{{{body} for {q} in {self.expr(('set', src, []), ctx, d - 1)}{cond}}}"
        if r < 0.62 and elem[0] == "set":
            self.feat("powerset", "powerset-nested")
            return f"powerset({self.expr(elem, ctx, d - 1)})"
        if r < 0.62 and elem[0] == "map" and elem[2][0] in SCALARS:
            self.feat("maps", "maps-nested")
            vals = self.r.sample(universe(elem[2]), min(2, len(universe(elem[2]))))
            return f"maps({dom_text(elem[1])}, {{{', '.join(vals)}}})"
        if r < 0.55 and base(elem) == ("int",):
            self.feat("range")
            lo = self.pick(self.refs(ctx, ("int", 0, 0)) or ["0"]) if self.chance(0.3) else self.int_lit(-1, 1)
            return f"({lo}..{self.int_lit(0, 3)})"
        if r < 0.65:
            seqs = [n for n in ctx.names if n.type[0] == "seq" and shape(n.type[1]) == shape(elem)
                    and (ctx.state or n.kind != "var")]
            if seqs:
                self.feat("elems")
                return f"elems({self.pick(seqs).name})"
        if r < 0.72 and elem[0] in ("sort", "int"):
            maps = [n for n in ctx.names if n.type[0] in ("map", "pmap") and base(n.type[1]) == base(elem)
                    and (ctx.state or n.kind != "var")]
            if maps:
                self.feat("domain")
                return f"domain({self.pick(maps).name})"
        if r < 0.76:
            self.feat("bigunion")
            return f"bigunion({{{sub()}, {sub()}}})"
        if r < 0.80 and d >= 2:
            self.feat("powerset")
            q = self.fresh("q")
            inner = ctx.with_name(q, t)
            return f"bigunion({{{q} for {q} in powerset({sub()}) if {self.expr(BOOL, inner, 1)}}})"
        if elem[0] == "sort" and self.chance(0.4):
            return elem[1]
        return self.lit(("set", elem, self.members(t)), empty=False)

    def e_seq(self, t, ctx: _Ctx, d: int) -> str:
        r = self.r.random()
        sub = lambda: self.expr(t, ctx, d - 1)  # noqa: E731
        if r < 0.25:
            self.feat("append")
            return f"append({sub()}, {self.expr(t[1], ctx, d - 1)})"
        if r < 0.40:
            self.feat("tail")
            s = sub()
            return f"(if {s} != [] then tail({s}) else [])"
        if r < 0.50:
            self.feat("concat")
            return f"({sub()} + {sub()})"
        if r < 0.60:
            self.feat("subseq")
            s = self.pick(self.refs(ctx, t) or ["[]"])
            return f"subseq({s}, 1, (if len({s}) < 1 then len({s}) else 1))" if s != "[]" else "[]"
        if r < 0.67 and base(t[1]) == ("int",):
            q, q2 = self.fresh("q"), self.fresh("q")
            if self.chance(0.5):
                self.feat("seq-comprehension", "seq-comprehension-several", "generators-several")
                inner = ctx.with_name(q, ("int", 0, 2)).with_name(q2, ("int", 0, 2))
                cond = f" if {self.expr(BOOL, inner, 1)}" if self.chance(0.4) else ""
                return (f"[{q} * 3 + {q2} for {q} in {self.expr(('set', ('int', 0, 2), []), ctx, 1)} "
                        f"for {q2} in {self.expr(('set', ('int', 0, 2), []), ctx.with_name(q, ('int', 0, 2)), 1)}{cond}]")
            self.feat("seq-comprehension", "seq-comprehension-over-sets", "powerset")
            base_set = "{" + ", ".join(self.r.sample(["0", "1", "2"], self.r.randint(1, 3))) + "}"
            return f"[sum({q2} for {q2} in {q}) for {q} in powerset({base_set})]"
        if r < 0.73 and base(t[1]) == ("int",):
            src, elem = self.nested_source(ctx)
            self.feat("seq-comprehension", "seq-comprehension-over-nested")
            q = self.fresh("q")
            return f"[{self.int_of(q, elem, ctx.with_name(q, elem))} for {q} in {src}]"
        if r < 0.78:
            self.feat("seq-comprehension")
            q = self.fresh("q")
            src = t[1] if t[1][0] != "bool" else ("int", 0, 2)
            inner = ctx.with_name(q, src)
            body = q if base(src) == base(t[1]) and self.chance(0.6) else self.expr(t[1], inner, 1)
            cond = f" if {self.expr(BOOL, inner, 1)}" if self.chance(0.4) else ""
            return f"[{body} for {q} in {self.expr(('set', src, []), ctx, 1)}{cond}]"
        return self.lit(t, empty=False)

    def e_map(self, t, ctx: _Ctx, d: int) -> str:
        if self.chance(0.6):
            self.feat("map-comprehension")
            q = self.fresh("q")
            inner = ctx.with_name(q, t[1], dom_text(t[1]))
            return f"{{{q} -> {self.expr(t[2], inner, d - 1)} for {q} in {dom_text(t[1])}}}"
        return self.lit(t, empty=False)

    def e_pmap(self, t, ctx: _Ctx, d: int) -> str:
        """A map over some of the keys: a comprehension over a subset of them (rebuilding a
        partial map variable over its grown or shrunk domain, or over any set of keys), or a
        literal."""
        r = self.r.random()
        mine = [n for n in ctx.names if shape(n.type) == shape(t) and (ctx.state or n.kind != "var")]
        if mine and r < 0.4:
            return self.resize(self.pick(mine).name, t, ctx)
        if r < 0.7:
            self.feat("map-comprehension", "map-comprehension-partial")
            q = self.fresh("q")
            inner = ctx.with_name(q, t[1], dom_text(t[1]))
            keys = self.expr(("set", t[1], []), ctx, 1)
            return f"{{{q} -> {self.expr(t[2], inner, d - 1)} for {q} in ({dom_text(t[1])} & {keys})}}"
        return self.lit(t, empty=False)

    def resize(self, m: str, t, ctx: _Ctx) -> str:
        """Partial map `m` (of type t) rebuilt over its domain with one key more or one less."""
        q = self.fresh("q")
        key = self.key_expr(t[1], ctx, 1)
        if self.chance(0.5):
            self.feat("map-domain-grows")
            inner = ctx.with_name(q, t[1], dom_text(t[1]))
            return (f"{{{q} -> (if {q} in domain({m}) then {m}[{q}] else {self.expr(t[2], inner, 1)}) "
                    f"for {q} in (domain({m}) | {{{key}}})}}")
        self.feat("map-domain-shrinks")
        return f"{{{q} -> {m}[{q}] for {q} in (domain({m}) - {{{key}}})}}"

    def e_rec(self, t, ctx: _Ctx, d: int) -> str:
        if self.chance(0.6):
            return "{" + ", ".join(f"{f}: {self.expr(ft, ctx, d - 1)}" for f, ft in t[1]) + "}"
        return self.lit(t, empty=False)

    def e_tup(self, t, ctx: _Ctx, d: int) -> str:
        if self.chance(0.6):
            return "(" + ", ".join(self.expr(x, ctx, d - 1) for x in t[1]) + ")"
        return self.lit(t, empty=False)

    # ---------------------------------------------------------------- functions
    def declare_defs(self) -> None:
        for _ in range(self.r.randint(0, 3)):
            kind = self.r.random()
            name = self.fresh("F")
            if kind < 0.3:
                params = [(self.fresh("a"), ("int", 0, 2)) for _ in range(self.r.randint(1, 2))]
                ctx = _Ctx(self.consts + [_Name(p, pt, "local") for p, pt in params], False, list(self.defs))
                body = self.expr(("int", 0, 2), ctx, 2)
                self.lines.append(f"def {name}({', '.join(f'{p}: int' for p, _ in params)}) -> int: {body}")
                self.defs.append(_Def(name, params, ("int", 0, 2), False, False))
                self.feat("def", "def-params")
            elif kind < 0.55:
                sort = self.pick(self.sorts)
                p = self.fresh("a")
                ctx = _Ctx(self.consts + self.vars + [_Name(p, sort, "local")], True, list(self.defs))
                body = self.expr(BOOL, ctx, 2)
                self.lines.append(f"def {name}({p}: {sort[1]}) -> bool: {body}")
                self.defs.append(_Def(name, [(p, sort)], BOOL, True, False))
                self.feat("def", "def-params", "def-reads-state")
            elif kind < 0.75:
                n = self.fresh("a")
                ctx = _Ctx(self.consts + [_Name(n, ("int", 0, 3), "local")], False, list(self.defs))
                step = self.expr(("int", 0, 2), ctx, 1)
                self.lines.append(f"def {name}({n}: int) -> int:\n    if {n} <= 0 then {self.int_lit(0, 2)} "
                                  f"else ({step} + {name}({n} - 1))")
                self.defs.append(_Def(name, [(n, ("int", 0, 3))], ("int", 0, 2), False, True))
                self.feat("def", "def-recursive")
            elif kind < 0.88:
                s = self.fresh("a")
                self.lines.append(f"def {name}({s}: set[int]) -> int:\n"
                                  f"    if {s} == {{}} then 0 else min({s}) + {name}({s} - {{min({s})}})")
                self.defs.append(_Def(name, [(s, ("set", ("int", 0, 2), ["0", "1", "2"]))], ("int", 0, 2),
                                      False, False))
                self.feat("def", "def-recursive", "def-recursive-set", "min")
            else:
                a = self.fresh("a")
                t = self.fresh("t")
                ctx = _Ctx(self.consts + self.vars + [_Name(a, ("int", 0, 2), "local")], True, list(self.defs))
                value = self.expr(("int", 0, 2), ctx, 1)
                ctx2 = ctx.with_name(t, ("int", 0, 2))
                self.lines.append(f"def {name}({a}: int) -> int:\n    let {t} = {value}\n"
                                  f"    {self.expr(('int', 0, 2), ctx2, 1)}")
                self.defs.append(_Def(name, [(a, ("int", 0, 2))], ("int", 0, 2), True, False))
                self.feat("def", "def-let", "def-reads-state", "let")

    # ---------------------------------------------------------------- actions
    def state_ctx(self) -> _Ctx:
        return _Ctx(self.consts + self.vars, True, list(self.defs))

    def param_set(self, ctx: _Ctx, earlier: list[_Name]) -> tuple[str, tuple, str | None]:
        """A small finite set for an action parameter or a `with` binder: (text, element type,
        the dom_text of map keys its elements are within, if any)."""
        r = self.r.random()
        if earlier and r < 0.3:
            e = self.pick(earlier)
            if e.type[0] == "sort":
                self.feat("binder-depends-on-earlier")
                return f"{e.type[1]} - {{{e.name}}}", e.type, e.type[1]
            if base(e.type) == ("int",):
                self.feat("binder-depends-on-earlier")
                return f"{e.name}..{self.r.randint(1, 3)}", ("int", 0, 3), None
        if r < 0.5:
            sets = [n for n in ctx.names if n.type[0] == "set" and n.kind == "var"]
            if sets:
                self.feat("binder-reads-state")
                s = self.pick(sets)
                return s.name, s.type[1], None
        if r < 0.6:
            maps = [n for n in ctx.names if n.type[0] in ("map", "pmap") and n.kind == "var"]
            if maps:
                m = self.pick(maps)
                q = self.fresh("q")
                self.feat("binder-reads-state", "set-comprehension")
                return (f"{{{q} for {q} in domain({m.name}) if {m.name}[{q}] != {self.lit(m.type[2])}}}", m.type[1],
                        dom_text(m.type[1]))
        if r < 0.7:
            keys = [t[1] for n in ctx.names if n.kind == "var" for _, t in self.paths(n.type, 2)
                    if t[0] in ("map", "pmap")]
            if keys:
                self.feat("binder-over-map-keys")
                key = self.pick(keys)
                return dom_text(key), key, dom_text(key)
        if r < 0.8:
            sort = self.pick(self.sorts)
            return sort[1], sort, sort[1]
        if r < 0.88 and any(c.name == "Vals" for c in self.consts):
            return "Vals", ("int", -1, 3), None
        lo = self.r.randint(-1, 1)
        if lo < 0:
            self.feat("negative-int")
        text = f"{self.num(lo)}..{self.num(self.r.randint(lo, 2))}"
        return text, ("int", lo, 2), text

    def declare_actions(self, box_mode: str) -> None:
        self.actions: list[tuple[str, list[tuple[str, tuple, bool]]]] = []
        for _ in range(self.r.randint(2, 5)):
            name = self.fresh("A")
            ctx = self.state_ctx()
            params = []
            earlier: list[_Name] = []
            for _ in range(self.pick([0, 0, 1, 1, 2, 3])):
                p = self.fresh("p")
                text, pt, dom = self.param_set(ctx, earlier)
                constant = not any(v.name in text.replace("(", " ").replace(")", " ").split() for v in self.vars)
                params.append((p, text, pt, constant and not earlier))
                earlier.append(_Name(p, pt, "local", dom))
                ctx = ctx.with_name(p, pt, dom)
            if params:
                self.feat("action-params")
                if len(params) > 1:
                    self.feat("action-params-several")
            self.assigned: set[str] = set()
            body = self.block(ctx, 2, top=True)
            if box_mode == "require":
                tests = [self.box(v.type, v.name) for v in self.vars if v.name in self.assigned]
                tests = [x for x in tests if x is not None]
                if tests:
                    body.append(f"require {' and '.join(tests)}")
            head = f"action {name}" + (f"({', '.join(f'{p} in {s}' for p, s, _, _ in params)})" if params else "")
            self.lines.append(head + ":")
            self.lines += ["    " + line for line in body]
            self.actions.append((name, [(p, pt, const) for p, _, pt, const in params]))

    def step_action(self, v: _Name) -> list[str] | None:
        """A small action that moves one variable through its box (a counter, a toggle, a set
        growing and shrinking, a queue): random actions alone reach few states."""
        t = v.type
        n = v.name
        name = self.fresh("Step")
        if t[0] == "int":
            hi = t[2]
            if len(t) > 3:
                return [f"action {name}:", f"    {n} = ({n} + 1) % {hi + 1}"]
            return [f"action {name}:", f"    either:", f"        require {n} < {self.num(hi)}", f"        {n} = {n} + 1",
                    "    or:", f"        require {n} > {self.num(t[1])}", f"        {n} = {n} - 1"]
        if t[0] == "bool":
            return [f"action {name}:", f"    {n} = not {n}"]
        if t[0] == "sort":
            return [f"action {name}(target in {t[1]} - {{{n}}}):", f"    {n} = target"]
        if t[0] == "set":
            members = t[2] or universe(t[1])
            return [f"action {name}(e in {{{', '.join(members)}}}):",
                    f"    if e in {n}:", f"        {n} = {n} - {{e}}", "    else:", f"        {n} = {n} | {{e}}"]
        if t[0] == "seq":
            choices = universe(t[1]) if t[1][0] in SCALARS else self.members(("set", t[1], []))
            return [f"action {name}:", "    either:", f"        require len({n}) < {t[2]}",
                    f"        with e in {{{', '.join(choices)}}}:", f"            {n} = append({n}, e)",
                    "    or:", f"        require {n} != []", f"        {n} = tail({n})"]
        if t[0] == "pmap" and self.chance(0.6):
            self.feat("map-domain-grows", "map-domain-shrinks")
            return [f"action {name}(k in {dom_text(t[1])}):", f"    if k in domain({n}):",
                    f"        {n} = {{j -> {n}[j] for j in (domain({n}) - {{k}})}}", "    else:",
                    f"        {n} = {{j -> (if j == k then {self.lit(t[2], empty=False)} else {n}[j]) "
                    f"for j in (domain({n}) | {{k}})}}"]
        # an entry (or a part of one) of a map, possibly inside a record, by parameters over the keys
        targets = [steps for steps, reached in self.paths(t, 3, write=True)
                   if steps and all(s[0] in ("key", "pkey", "field") for s in steps) and any(s[0] in ("key", "pkey") for s in steps)]
        if not targets:
            return None
        steps = self.pick(targets)
        params, target, guards, sub = [], n, [], t
        for step in steps:
            if step[0] == "field":
                target, sub = f"{target}.{step[1]}", dict(sub[1])[step[1]]
                continue
            k = f"k{len(params) + 1}"
            params.append(f"{k} in {dom_text(step[1])}")
            if step[0] == "pkey":
                guards.append(f"{k} in domain({target})")
            target, sub = f"{target}[{k}]", sub[2]
        choices = universe(sub) if sub[0] in SCALARS or sub[0] == "opt" else self.members(("set", sub, []))
        self.note_path(steps, "assign")
        if len(steps) > 1:
            self.feat("step-action-nested")
        head = f"action {name}({', '.join(params)}, e in {{{', '.join(choices)}}}):"
        if guards:
            return [head, f"    if {' and '.join(guards)}:", f"        {target} = e"]
        return [head, f"    {target} = e"]

    def block(self, ctx: _Ctx, d: int, top: bool = False) -> list[str]:
        """The lines of a block of statements (unindented), 1 to 3 statements (more at the top)."""
        out: list[str] = []
        if top and self.chance(0.5):
            self.feat("require", "require-top")
            out.append(f"require {self.guard(ctx)}")
        assigned_here = False
        for _ in range(self.r.randint(1, 3 if top else 2)):
            r = self.r.random()
            if d > 0 and r < 0.12:
                self.feat("either")
                branches = self.r.randint(2, 3)
                out.append("either:")
                for i in range(branches):
                    if i:
                        out.append("or:")
                    out += ["    " + x for x in self.block(ctx, d - 1)]
            elif d > 0 and r < 0.22:
                self.feat("with")
                binders = []
                inner = ctx
                earlier: list[_Name] = []
                for _ in range(self.pick([1, 1, 2, 3])):
                    w = self.fresh("w")
                    text, wt, dom = self.param_set(inner, earlier)
                    binders.append(f"{w} in {text}")
                    earlier.append(_Name(w, wt, "local", dom))
                    inner = inner.with_name(w, wt, dom)
                if len(binders) > 1:
                    self.feat("with-several")
                out.append(f"with {', '.join(binders)}:")
                out += ["    " + x for x in self.block(inner, d - 1)]
            elif d > 0 and r < 0.32:
                self.feat("if")
                out.append(f"if {self.guard(ctx)}:")
                out += ["    " + x for x in self.block(ctx, d - 1)]
                if self.chance(0.4):
                    self.feat("elif")
                    out.append(f"elif {self.guard(ctx)}:")
                    out += ["    " + x for x in self.block(ctx, d - 1)]
                if self.chance(0.5):
                    self.feat("else")
                    out.append("else:")
                    out += ["    " + x for x in self.block(ctx, d - 1)]
            elif r < 0.40:
                self.feat("let")
                t = self.pick([("int", 0, 2), BOOL, self.pick(self.sorts)]
                              + [v.type for v in self.vars if v.type[0] != "opt"])
                name = self.fresh("k")
                out.append(f"let {name} = {self.expr(t, ctx, 2)}")
                ctx = ctx.with_name(name, t)
            elif r < 0.46:
                self.feat("require")
                if assigned_here:
                    self.feat("require-after-assign")
                out.append(f"require {self.guard(ctx)}")
            elif r < 0.48:
                self.feat("skip")
                out.append("skip")
            elif r < 0.51 and self.risk_error and not self.intended_error:
                self.intended_error = True
                self.feat("intended-error")
                out.append(self.risky(ctx))
            else:
                if assigned_here or self.assigned:
                    self.feat("sequential-assignment")
                out += self.assignment(ctx)
                assigned_here = True
        return out

    def guard(self, ctx: _Ctx) -> str:
        """A condition that holds in some states and not in others, most of the time (a random
        condition is often constant, and a false one disables the action everywhere)."""
        if self.chance(0.3):
            return self.expr(BOOL, ctx, 2)
        v = self.pick(self.vars)
        t = v.type
        if t[0] == "int":
            return f"{v.name} {self.pick(['<', '>', '!=', '<=', '>='])} {self.num(self.r.randint(t[1], t[2]))}"
        if t[0] == "bool":
            return self.pick([v.name, f"not {v.name}"])
        if t[0] == "set":
            return f"{self.pick(t[2] or universe(t[1]))} {self.pick(['in', 'not in'])} {v.name}"
        if t[0] == "seq":
            return f"len({v.name}) {self.pick(['<', '>'])} {self.r.randint(0, t[2])}"
        if t[0] in ("sort", "opt"):
            return f"{v.name} {self.pick(['==', '!='])} {self.lit(t)}"
        found = [(steps, reached) for steps, reached in self.paths(t, 3) if steps and reached[0] in SCALARS]
        if found and self.chance(0.7):
            steps, reached = self.pick(found)
            self.note_path(steps, "read")
            text, guards, _ = self.walk(v.name, t, steps, ctx)
            return "(" + " and ".join(guards + [f"{text} {self.pick(['==', '!='])} {self.lit(reached)}"]) + ")"
        return self.expr(BOOL, ctx, 1)

    def risky(self, ctx: _Ctx) -> str:
        """A statement that may fail with an evaluation error in some reachable state."""
        ints = [v for v in self.vars if v.type[0] == "int"]
        seqs = [v for v in self.vars if v.type[0] == "seq"]
        k = self.fresh("k")
        if seqs and self.chance(0.5):
            return f"let {k} = head({self.pick(seqs).name})"
        if ints:
            v = self.pick(ints)
            return f"let {k} = 6 // ({v.name} - {self.num(self.r.randint(v.type[1], v.type[2]))})"
        sort = self.pick(self.sorts)  # a map whose domain is only the first member
        return f"let {k} = {{{sort[2][0]} -> 1}}[{self.pick(list(sort[2]))}]"

    def assignment(self, ctx: _Ctx) -> list[str]:
        v = self.pick(self.vars)
        t = v.type
        self.assigned.add(v.name)
        if t[0] in ("map", "pmap") and self.chance(0.4):
            return self.map_statements(v, ctx)
        targets = [steps for steps, _ in self.paths(t, 3, write=True) if steps]
        if targets and self.chance(0.5):
            return self.assign_at(v, self.pick(targets), ctx)
        return [f"{v.name} = {self.value(t, ctx, v.name)}"]

    def assign_at(self, v: _Name, steps: tuple, ctx: _Ctx) -> list[str]:
        """An assignment to a part of `v` (`v[k].f[2] = e`), under the guards its steps need."""
        target, guards, reached = self.walk(v.name, v.type, steps, ctx)
        if steps[0][0] in ("key", "pkey"):
            self.feat("assign-map-entry")
        if any(s[0] == "field" for s in steps):
            self.feat("assign-record-field")
        if any(s[0] == "pos" for s in steps):
            self.feat("assign-seq-position")
        self.note_path(steps, "assign")
        line = f"{target} = {self.value(reached, ctx, target)}"
        if guards:
            self.feat("if")
            return [f"if {' and '.join(guards)}:", "    " + line]
        return [line]

    def map_key(self, t, ctx: _Ctx) -> str:
        """A key of map type t for an entry assignment: an action parameter or `with` binder over
        the keys (codegen's by-position path, when they are a constant domain), or any key."""
        bound = [n.name for n in ctx.names if n.kind == "local" and n.dom == dom_text(t[1])
                 and shape(n.type) == shape(t[1])]
        if bound and self.chance(0.6):
            self.feat("map-key-bound")
            return self.pick(bound)
        return self.key_expr(t[1], ctx, 1)

    def computed_key(self, t, ctx: _Ctx) -> str:
        """A key computed from an expression (the runtime's search by key)."""
        self.feat("map-key-computed")
        key = t[1]
        if key[0] == "int":
            return f"(({self.expr(('int', 0, 2), ctx, 1)}) % {key[2] - key[1] + 1}{f' + {self.num(key[1])}' if key[1] else ''})"
        a, b = self.pick(list(key[2])), self.pick(list(key[2]))
        return f"(if {self.guard(ctx)} then {a} else {b})"

    def entry(self, v: _Name, ctx: _Ctx, key: str | None = None) -> list[str]:
        """`m[k] = e` for map variable v (inside `if k in domain(m):` for a partial map)."""
        t = v.type
        key = key or self.map_key(t, ctx)
        target = f"{v.name}[{key}]"
        line = f"{target} = {self.value(t[2], ctx, target)}"
        self.feat("assign-map-entry")
        if t[0] == "pmap":
            self.feat("assign-partial-map-entry", "if")
            return [f"if {key} in domain({v.name}):", "    " + line]
        return [line]

    def map_statements(self, v: _Name, ctx: _Ctx) -> list[str]:
        """Statements that assign entries of map variable v in the ways codegen treats apart: by
        a parameter or binder over its keys, by a computed key, several times, in some
        branches only, before or after assigning the whole map, and through nested paths."""
        t, m = v.type, v.name
        kind = self.pick(["with", "computed", "repeated", "branch", "then-whole", "whole-then", "nested", "bound"])
        if kind == "with":
            w = self.fresh("w")
            keys = dom_text(t[1]) if t[0] == "map" or self.chance(0.5) else f"domain({m})"
            inner = ctx.with_name(w, t[1], dom_text(t[1]))
            self.feat("with", "map-key-with")
            body = self.entry(v, inner, w)
            if self.chance(0.4):
                body += self.entry(v, inner)
            return [f"with {w} in {keys}:"] + ["    " + x for x in body]
        if kind == "computed":
            return self.entry(v, ctx, self.computed_key(t, ctx))
        if kind == "repeated":
            self.feat("map-assign-repeated")
            first = self.map_key(t, ctx)
            second = first if self.chance(0.3) else self.map_key(t, ctx)
            return self.entry(v, ctx, first) + self.entry(v, ctx, second)
        if kind == "branch":
            self.feat("map-assign-in-branch")
            other = self.pick([["skip"], self.entry(v, ctx), [f"{m} = {self.value(t, ctx, m)}"]])
            if self.chance(0.5):
                self.feat("either")
                return ["either:"] + ["    " + x for x in self.entry(v, ctx)] + ["or:"] + ["    " + x for x in other]
            self.feat("if")
            out = [f"if {self.guard(ctx)}:"] + ["    " + x for x in self.entry(v, ctx)]
            if self.chance(0.5):
                self.feat("else")
                out += ["else:"] + ["    " + x for x in other]
            return out
        if kind == "then-whole":
            self.feat("map-assign-then-whole")
            return self.entry(v, ctx) + [f"{m} = {self.value(t, ctx, m)}"]
        if kind == "whole-then":
            self.feat("map-whole-then-entry")
            return [f"{m} = {self.value(t, ctx, m)}"] + self.entry(v, ctx)
        if kind == "nested":
            deep = [steps for steps, _ in self.paths(t, 3, write=True) if len(steps) >= 2]
            if deep:
                return self.assign_at(v, self.pick(deep), ctx)
        return self.entry(v, ctx)

    def value(self, t, ctx: _Ctx, current: str) -> str:
        """A new value for the target `current` of type t: mostly a small step from its value
        (so that the state space has some depth), sometimes any value."""
        if t[0] == "pmap" and self.chance(0.5):
            return self.resize(current, t, ctx)
        if t[0] == "int" and len(t) > 3:
            return f"({self.value(t[:3], ctx, current)}) % {t[2] + 1}"
        if t[0] == "sort" and self.chance(0.6):
            return self.pick(list(t[2]))
        if t[0] == "int" and self.chance(0.8):
            step = self.pick(["+ 1", "- 1", "+ 1", f"+ {self.expr(('int', 0, 2), ctx, 1)}"])
            if self.chance(0.3):
                self.feat("div-mod")
                return f"({current} {step}) % {t[2] + 1}"
            return f"{current} {step}"
        if t[0] == "bool" and self.chance(0.6):
            self.feat("not")
            return f"not {current}"
        if t[0] == "set" and self.chance(0.7):
            op = self.pick(["|", "-"])
            self.feat("union" if op == "|" else "difference")
            return f"{current} {op} {{{self.expr(t[1], ctx, 1)}}}"
        if t[0] == "seq" and self.chance(0.7):
            if self.chance(0.5):
                self.feat("append")
                return f"append({current}, {self.expr(t[1], ctx, 1)})"
            self.feat("tail")
            return f"(if {current} != [] then tail({current}) else [])"
        return self.expr(t, ctx, 2)

    # ---------------------------------------------------------------- checks
    def declare_invariants(self, box_mode: str) -> None:
        ctx = self.state_ctx()
        for _ in range(self.pick([0, 1, 1, 2, 2, 3])):
            name = self.fresh("Inv")
            r = self.r.random()
            if r < 0.5:
                self.feat("invariant-target")
                vs = self.r.sample(self.vars, min(2, len(self.vars)))
                body = "not (" + " and ".join(f"{v.name} == {self.lit(v.type)}" for v in vs) + ")"
            elif r < 0.75:
                tests = [self.box(v.type, v.name) for v in self.vars]
                tests = [x for x in tests if x is not None]
                if not tests:
                    continue
                self.feat("invariant-box")
                body = " and ".join(tests)
            else:
                body = self.expr(BOOL, ctx, 3)
            if self.chance(0.2):
                k = self.fresh("k")
                t = self.pick([("int", 0, 2)] + [v.type for v in self.vars if v.type[0] != "opt"])
                self.feat("let")
                self.lines.append(f"invariant {name}:\n    let {k} = {self.expr(t, ctx, 2)}\n"
                                  f"    {self.expr(BOOL, ctx.with_name(k, t), 2)} or ({body})")
            elif self.actions and self.chance(0.15):
                # TLA+'s ENABLED: whether an action has a step from the state
                a, params = self.pick(self.actions)
                self.feat("enabled")
                if params and self.chance(0.5):  # `enabled(A(x, y))`: with these arguments
                    a = f"{a}({', '.join(self.lit(pt) for _, pt, _ in params)})"
                    self.feat("enabled-args")
                self.lines.append(f"invariant {name}: enabled({a}) or ({body})")
            else:
                self.lines.append(f"invariant {name}: {body}")
            self.feat("invariant")

    def declare_reachables(self, boxed: list[_Name], cut: str | None) -> None:
        """One or two reachable checks: a target state or a state-dependent condition (which may
        or may not be reachable), or one that cannot hold in a stored state: outside a variable's
        box (never generated with the box as a `require`, generated and not stored with it as a
        constraint), cut off by the random constraint, or a contradiction."""
        ctx = self.state_ctx()
        for _ in range(self.r.randint(1, 2)):
            name = self.fresh("Reach")
            r = self.r.random()
            if r < 0.35:
                self.feat("reachable-target")
                vs = self.r.sample(self.vars, min(self.r.randint(1, 2), len(self.vars)))
                body = " and ".join(f"{v.name} == {self.lit(v.type)}" for v in vs)
            elif r < 0.6:
                self.feat("reachable-guard")
                body = self.guard(ctx)
            elif r < 0.85 and cut is not None:
                self.feat("reachable-impossible", "reachable-cut-by-constraint")
                body = cut
            elif boxed:
                self.feat("reachable-impossible", "reachable-outside-box")
                v = self.pick(boxed)
                body = f"not {self.box(v.type, v.name)}"
            else:
                self.feat("reachable-impossible", "reachable-contradiction")
                v = self.pick(self.vars)
                value = self.lit(v.type)
                body = f"{v.name} == {value} and {v.name} != {value}"
            self.lines.append(f"reachable {name}: {body}")
            self.feat("reachable")

    def declare_temporal(self) -> None:
        ctx = self.state_ctx()

        def pred(c: _Ctx) -> str:
            if self.chance(0.5):
                v = self.pick(self.vars)
                return f"{v.name} {self.pick(['==', '!='])} {self.lit(v.type)}"
            return self.expr(BOOL, c, 2)

        for _ in range(self.r.randint(1, 2)):
            name = self.fresh("Prop")

            def form(c: _Ctx) -> str:
                r = self.r.random()
                if r < 0.15:
                    self.feat("always")
                    return f"always ({pred(c)})"
                if r < 0.35:
                    self.feat("eventually")
                    return f"eventually ({pred(c)})"
                if r < 0.55:
                    self.feat("leads_to")
                    return f"({pred(c)}) leads_to ({pred(c)})"
                if r < 0.7:
                    self.feat("always-eventually")
                    return f"always eventually ({pred(c)})"
                if r < 0.82:
                    self.feat("eventually-always")
                    return f"eventually always ({pred(c)})"
                if r < 0.9:
                    self.feat("always-implies-eventually")
                    return f"always (({pred(c)}) implies eventually ({pred(c)}))"
                self.feat("temporal-nested")  # any nesting: decided by the tableau
                return nested(c, 3)

            def nested(c: _Ctx, depth: int) -> str:
                r = self.r.random()
                if depth == 0 or r < 0.2:
                    return f"({pred(c)})"
                if r < 0.35:
                    return f"always {nested(c, depth - 1)}"
                if r < 0.5:
                    return f"eventually {nested(c, depth - 1)}"
                if r < 0.62:
                    return f"(not {nested(c, depth - 1)})"
                op = self.pick(["and", "or", "implies", "leads_to"])
                return f"({nested(c, depth - 1)} {op} {nested(c, depth - 1)})"

            r = self.r.random()
            if r < 0.25:
                sort = self.pick(self.sorts)
                q = self.fresh("q")
                self.feat("property-all")
                body = f"all(({form(ctx.with_name(q, sort))}) for {q} in {sort[1]})"
            elif r < 0.45:
                self.feat("property-and")
                body = f"({form(ctx)}) and ({form(ctx)})"
            else:
                body = form(ctx)
            self.lines.append(f"property {name}: {body}")
            self.feat("property")
        for _ in range(self.r.randint(0, 3)):
            strength = self.pick(["weak", "strong"])
            self.feat(f"fair-{strength}")
            name, params = self.pick(self.actions)
            consts = [(p, pt) for p, pt, const in params[:1] if const]
            r = self.r.random()
            if consts and r < 0.6:
                p, pt = consts[0]
                q = self.fresh("q")
                dom = pt[1] if pt[0] == "sort" else f"{self.num(pt[1])}..{self.num(pt[2])}"
                args = [q] + ["*"] * (len(params) - 1)
                if len(params) > 1:
                    self.feat("fair-wildcard")
                self.feat("fair-per-value")
                target = f"{name}({', '.join(args)})"
                others = [(n, ps) for n, ps in self.actions if n != name and ps and ps[0][2]
                          and base(ps[0][1]) == base(pt)]
                if others and self.chance(0.5):
                    n2, ps2 = self.pick(others)
                    target += f" or {n2}({', '.join([q] + ['*'] * (len(ps2) - 1))})"
                    self.feat("fair-or")
                self.lines.append(f"fair {strength} {target} for {q} in {dom}")
            elif r < 0.75 and len(self.actions) > 1:
                n2 = self.pick([n for n, _ in self.actions if n != name])
                self.feat("fair-or")
                self.lines.append(f"fair {strength} {name} or {n2}")
            elif params and r < 0.85:
                p, pt, _ = params[0]
                same = [v.name for v in self.vars if base(v.type) == base(pt)]
                if same:
                    self.feat("fair-args-read-state")
                    args = [self.pick(same)] + ["*"] * (len(params) - 1)
                    self.lines.append(f"fair {strength} {name}({', '.join(args)})")
                else:
                    self.lines.append(f"fair {strength} {name}")
            else:
                self.lines.append(f"fair {strength} {name}")

    # ---------------------------------------------------------------- the spec
    def run(self) -> GeneratedSpec:
        self.intended_error = False
        self.risk_error = self.chance(0.3)  # this spec may hold one statement that risks an evaluation error
        self.lines.append(f"spec Oracle{self.seed}")
        self.declare_sorts()
        self.declare_vars()
        self.declare_defs()
        boxed = [v for v in self.vars if needs_box(v.type)]
        box_mode = self.pick(["require", "require", "constraint"]) if boxed else "none"
        self.declare_actions(box_mode)
        for v in [v for v in self.vars if self.chance(0.6)]:
            lines = self.step_action(v)
            if lines is not None:
                self.feat("step-action")
                self.lines += lines
        if box_mode == "constraint":
            tests = [self.box(v.type, v.name) for v in boxed]
            self.lines.append(f"constraint Box: {' and '.join(x for x in tests if x is not None)}")
            self.feat("constraint", "constraint-box")
        else:
            self.feat(f"box-{box_mode}")
        cut = None  # the states the random constraint cuts off
        if self.chance(0.08):
            self.feat("constraint", "constraint-random")
            v = self.pick(self.vars)
            value, cond = self.lit(v.type), self.expr(BOOL, self.state_ctx(), 2)
            self.lines.append(f"constraint Extra: {v.name} != {value} or {cond}")
            cut = f"{v.name} == {value} and not ({cond})"
        temporal = self.chance(0.2)
        if temporal:
            self.declare_temporal()
        else:
            self.declare_invariants(box_mode)
        deadlock = self.chance(0.5)
        self.feat("deadlock-check" if deadlock else "no-deadlock")
        if self.chance(0.2):
            self.declare_reachables(boxed, cut)
        return GeneratedSpec(self.seed, "\n".join(self.lines) + "\n", deadlock, frozenset(self.features))


def generate(seed: int) -> GeneratedSpec:
    """The spec of `seed` (deterministic: see the module docstring)."""
    return _Gen(seed).run()
