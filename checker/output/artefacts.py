"""Counterexample artefacts: deterministic, safe file names and the content of every file.

One counterexample gives, under the stem `<spec file>.<variant>.<property>`:
`.txt` (the text report without the run-dependent summary), `.json` (what
`check --json` prints, with `elapsed_s` (and `symmetry`'s `keys_s`, `keys_share`, `pays`) null so the file is reproducible),
`.itf.json` (ITF), `.dot` (trace diagram), when the trace involves more
than one actor or when asked, `.swimlanes.dot`, and `.html` (the offline
report of output/html.py). The command line turns each
`.dot` into `.svg`/`.png` and writes the files; this module only computes them.

`tlacheck counterexamples` (app/counterexamples.py, which builds and explores) fills the whole
`counterexamples/` folder with these files, its README (`index`) and its manifest: the same code
and specs give byte-identical text files. The folder's manifest (`MANIFEST`,
tlacheck-manifest.txt) lists every file the command writes there; `plan_folder` decides from it
alone what may be overwritten and what is stale: a file the manifest does not list is never
removed or overwritten, whatever its name.

Names: every part is reduced to `[A-Za-z0-9_-]` (anything else becomes `_`,
at most 64 characters), parts are joined by dots, and `inside` refuses a path
that resolves outside the output directory, so no spec, variant or property
name can write elsewhere (`../../x` becomes `x`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tlacheck.compile.model import Model
from tlacheck.core.errors import TlacheckError, UsageError
from tlacheck.core.files import read_source
from tlacheck.core.result import Check, Result, Trace, Violation
from tlacheck.core.source import Source, Span
from tlacheck.output import html
from tlacheck.output import itf
from tlacheck.output import render
from tlacheck.output.report import format_result, result_json, verdict_text


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
STATUS = {Check.INVARIANT: "violation", Check.PROPERTY: "violation", Check.STEP: "violation",
          Check.DEADLOCK: "deadlock", Check.LIVENESS: "liveness", Check.ERROR: "error", Check.UNREACHABLE: "violation"}


def safe_part(text: str | None, default: str = "_") -> str:
    """One component of a file name: letters, digits, `_` and `-` only, never empty, at most 64 characters."""
    part = _UNSAFE.sub("_", text or "").strip("_")[:64]
    return part or default


def stem(spec: str, variant: str, prop: str | None) -> str:
    """`diehard.base.NotSolved`: the file name stem of one counterexample."""
    return ".".join((safe_part(spec, "spec"), safe_part(variant, "base"), safe_part(prop, "violation")))


def spec_stem(path: str) -> str:
    name = PurePosixPath(path.replace("\\", "/")).name
    return name[:-5] if name.endswith(".spec") else name


def property_name(violation: Violation) -> str:
    return violation.name or violation.kind.value


def public_path(path: str, cwd: str | None = None) -> str:
    """The spec file's name as a report meant to be shared shows it: a relative path as given; an
    absolute one relative to `cwd` (default: the working directory) when it lies below it, else
    its file name only, and so for a relative path that climbs out with `..`. No folder above
    the working directory (a home folder's name) gets into an HTML report."""
    given = PurePosixPath(path.replace("\\", "/"))
    if not given.is_absolute() and ".." not in given.parts:
        return path
    if given.is_absolute():
        base = PurePosixPath((cwd if cwd is not None else os.getcwd()).replace("\\", "/"))
        try:
            rel = given.relative_to(base)
        except ValueError:
            rel = None
        if rel is not None and rel.parts and ".." not in rel.parts:
            return rel.as_posix()
    return given.name


def _renamed(data, old: str, new: str):
    """`data` (JSON) with every `file` field that names `old` naming `new` instead."""
    if isinstance(data, dict):
        return {k: (new if k == "file" and v == old else _renamed(v, old, new)) for k, v in data.items()}
    if isinstance(data, list):
        return [_renamed(v, old, new) for v in data]
    return data


def inside(directory: str | Path, name: str) -> Path:
    """`directory / name`, resolved; a UsageError for any name that would resolve outside
    `directory`, by `..` or through a symlink planted in it (say, in a cloned repository)."""
    base = Path(directory).resolve()
    path = (base / name).resolve()
    if path == base or base not in path.parents:
        raise UsageError(f"refusing to write {name!r}: it would land outside {directory} ({path})",
                         "is there a symlink in the output directory? remove it or choose another directory")
    return path


# ---------------------------------------------------------------- headlines

def property_source(model: Model, source: Source | None, name: str | None) -> str | None:
    """The declaration of the named invariant or property as written in the spec, on one line
    (a check declared in a file the spec imports, as written there)."""
    if source is None or name is None:
        return None
    span = next((s for s in (model.span_of(kind, name) for kind in ("step", "property", "invariant")) if s), None)
    if span is None:
        return None
    if span.file != source.name:
        try:
            source = read_source(span.file)
        except TlacheckError:
            return None
    lines = source.text.splitlines()
    first = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
    text = first.strip()
    indent = len(first) - len(first.lstrip())
    for line in lines[span.line:span.line + 6]:  # a multi-line body: its indented lines
        if not line.strip() or len(line) - len(line.lstrip()) <= indent:
            break
        text += " " + line.strip()
    text = text.split(" #")[0].strip()
    return text if len(text) <= 120 else text[:119] + "…"


def headline(model: Model, violation: Violation, source: Source | None = None) -> render.Headline:
    n = len(violation.trace.steps) - 1
    steps = f"{n} step{'s' if n != 1 else ''}"
    name = violation.name
    kind = violation.kind
    detail = property_source(model, source, name)
    if kind == Check.INVARIANT:
        return render.Headline(f"{model.name}: invariant {name} is violated after {steps}", f"violates {name}",
                               detail)
    if kind == Check.DEADLOCK:
        return render.Headline(f"{model.name}: deadlock after {steps}", "deadlock: no action is enabled", detail)
    if kind == Check.STEP:
        return render.Headline(f"{model.name}: step property {name} is violated by the step to state {n + 1}",
                               f"violates step property {name}", detail)
    if kind == Check.LIVENESS:
        why = f": {violation.message}" if violation.message else ""
        return render.Headline(f"{model.name}: temporal property {name} is violated", f"violates {name}{why}",
                               detail)
    if kind == Check.ERROR:
        return render.Headline(f"{model.name}: evaluation error {name} after {steps}",
                               f"error {name}: {violation.message}", None)
    if kind == Check.REACHABLE:  # verify shows a reachable check's witness
        return render.Headline(f"{model.name}: reachable check {name} holds: a shortest witness of {steps}",
                               f"reaches {name}", detail)
    if kind == Check.TRACE:  # a saved trace that records no check
        return render.Headline(f"{model.name}: a saved trace of {steps}", "the last state", None)
    return render.Headline(f"{model.name}: {kind} {name} is violated", f"violates {name}", detail)


# ---------------------------------------------------------------- contents

def run_json(model: Model, result: Result, spec_path: str, variant: str, defines: dict, *, deadlock_checked: bool,
             reproducible: bool = False) -> dict:
    """`check --json`'s object: the result's, the variant and `-D` overrides needed to rebuild the
    model (render and replay read them) and whether the run reported deadlocks; `reproducible`
    drops the run-dependent values (the times) and the transition caches' counts (which depend on
    the implementation and the number of processes, not on the spec)."""
    data = result_json(model, result, spec_path)
    data["variant"] = variant
    data["defines"] = dict(sorted(defines.items()))
    data["deadlock_checked"] = deadlock_checked
    if reproducible:
        data["elapsed_s"] = None
        if data["symmetry"] is not None:
            data["symmetry"].update(keys_s=None, keys_share=None, pays=None)
        data["transition_cache"] = None
    return data


def diagrams(model: Model, violation: Violation, source: Source | None, view: render.View = render.View(),
             swimlanes: bool | None = None) -> dict[str, str]:
    """DOT sources by file suffix: `.dot`, and `.swimlanes.dot` when `swimlanes` is True, or when it
    is None and the trace has more than one actor."""
    head = headline(model, violation, source)
    out = {".dot": render.trace_dot(model, violation.trace, head, view)}
    if swimlanes is None:
        swimlanes = len(render.lanes(model, violation.trace)[0]) > 1
    if swimlanes:
        out[".swimlanes.dot"] = render.swimlanes_dot(model, violation.trace, head, view)
    return out


def html_doc(model: Model, violation: Violation, source: Source | None, spec_path: str, variant: str,
             defines: dict, result: Result | None = None, deadlock_checked: bool = True,
             fault: Span | None = None) -> html.TraceDoc:
    """What the HTML report shows of one counterexample: the headline, the run's figures (when
    `result` is given, with whether it `deadlock_checked`), and the trace as `check --json` and
    ITF for tools. Nothing in it depends on the run (the embedded JSON's `elapsed_s` is null),
    so the same check gives the same bytes. `fault`: where an evaluation error occurred (default:
    the result's error's place). The spec file is named as `public_path` says, everywhere in the
    report (the embedded JSON too)."""
    shown = public_path(spec_path)
    facts = [("spec", shown), ("variant", variant)]
    if defines:
        facts.append(("-D", ", ".join(f"{k}={v}" for k, v in sorted(defines.items()))))
    embedded: list[tuple[str, object]] = []
    if result is not None:
        facts += [("verdict", verdict_text(result)), ("distinct states", f"{result.distinct_states:,}"),
                  ("states generated", f"{result.states_generated:,}"), ("depth", f"{result.depth:,}")]
        data = run_json(model, result, spec_path, variant, defines, deadlock_checked=deadlock_checked,
                        reproducible=True)
        embedded.append(("json", _renamed(data, spec_path, shown)))
    embedded.append(("itf", itf.trace_itf(model, violation.trace, source=shown,
                                          status=STATUS.get(violation.kind, "violation"), kind=violation.kind,
                                          name=violation.name, variant=variant)))
    if fault is None and result is not None and result.error is not None:
        fault = getattr(result.error, "span", None)
    return html.TraceDoc(model, violation, source, headline(model, violation, source),
                         tuple(facts), tuple(embedded), fault=fault, file=shown)


def verify_html(rows, sources: dict[str, Source], defines: dict, simulated: bool = False) -> str:
    """`verify --html`: the expectations (app/verify.py's rows) and one viewer per counterexample
    or witness; a fix that makes a check hold links to the step of the base counterexample it
    blocks (that counterexample gets a viewer of its own when no row shows it)."""
    docs: list[html.TraceDoc] = []
    shown: dict[tuple[str, str, str], int] = {}  # (file, variant, check) -> viewer
    notes: dict[int, list[tuple[int, str]]] = {}  # viewer -> (state, what blocks the step to it)

    def viewer(model, violation: Violation, file: str, variant: str) -> int:
        key = (file, variant, violation.name or violation.kind.value)
        if key not in shown:
            shown[key] = len(docs)
            docs.append(html_doc(model, violation, sources.get(file), file, variant, defines))
        return shown[key]

    def public(r, text: str | None) -> str | None:  # `(path:181)` in verify's notes, as the viewers name it
        return text.replace(f"{r.file}:", f"{public_path(r.file)}:") if text else text

    out = []
    for r in rows:
        evidence = r.evidence
        if isinstance(evidence, Trace):  # a reachable check's witness
            evidence = Violation(Check.REACHABLE, r.check, evidence)
        k = viewer(r.model, evidence, r.file, r.variant) if evidence is not None and evidence.trace.steps else None
        blocked_viewer = blocked = None
        if r.base is not None and r.blocked_state is not None:
            blocked_viewer = viewer(*r.base, r.file, "base")
            # a lasso's step back to its loop state is numbered one past the last state: shown from there
            blocked = min(r.blocked_state, len(r.base[1].trace.steps))
            notes.setdefault(blocked_viewer, []).append((blocked, f"fix {r.variant} blocks this step: "
                                                         f"{public(r, r.replay)}"))
        out.append(html.VerifyRow(f"{r.spec} · {r.variant}", r.check, r.expected.value, r.got.value,
                                  r.ok or r.unchecked,
                                  public(r, r.note), k, public(r, r.replay), blocked_viewer, blocked,
                                  r.blocked_line,
                                  witness=isinstance(r.evidence, Trace)))
    for k, found in notes.items():
        docs[k] = dataclasses.replace(docs[k], notes=tuple(dict.fromkeys(found)))
    met = sum(1 for r in rows if r.ok or r.unchecked)
    files = ", ".join(dict.fromkeys(public_path(r.file) for r in rows))
    summary = f"{met} of {len(rows)} expectations met" + (" (decided by simulation: `holds` is not a proof)"
                                                          if simulated else "")
    return html.verify_report(f"tlacheck verify: {files}", out, docs, summary)


def counterexample_files(model: Model, result: Result, spec_path: str, variant: str, defines: dict,
                         source: Source | None, view: render.View = render.View(),
                         swimlanes: bool | None = None) -> dict[str, str]:
    """Every text artefact of one counterexample, by file suffix."""
    v = result.violation
    report = format_result(model, result, spec_path)
    text = report.split("\nSummary:\n")[0].rstrip() + "\n"  # the summary holds timings
    deadlock_checked = v.kind == Check.DEADLOCK  # check_expected looks for deadlocks only when one is expected
    data = run_json(model, result, spec_path, variant, defines, deadlock_checked=deadlock_checked, reproducible=True)
    trace = itf.trace_itf(model, v.trace, source=spec_path, status=STATUS.get(v.kind, "violation"), kind=v.kind,
                          name=v.name, variant=variant)
    out = {".txt": text, ".json": _dump(data), ".itf.json": _dump(trace)}
    out.update(diagrams(model, v, source, view, swimlanes))
    out[".html"] = html.trace_report(html_doc(model, v, source, spec_path, variant, defines, result,
                                              deadlock_checked=deadlock_checked))
    return out


def _dump(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- the manifest: what the command wrote

MANIFEST = "tlacheck-manifest.txt"
def _manifest_head(command: str) -> tuple[str, str]:
    return (f"# Written by `tlacheck {command}`: the files it wrote in this folder, one a line.",
            "# It overwrites and removes these files only; any other file here is yours and left alone.")


# What each command that keeps a manifest writes, for its messages
_WRITES = {"counterexamples": "the counterexamples", "tests": "the behaviours"}


def manifest(files, command: str = "counterexamples") -> str:
    """The manifest of a folder holding `files` (relative paths), written by `tlacheck COMMAND`:
    each of them and the `.svg` of each `.dot` (written when the `dot` program is there), sorted;
    not the manifest itself."""
    names = set(files) | {rel.removesuffix(".dot") + ".svg" for rel in files if rel.endswith(".dot")}
    names.discard(MANIFEST)
    return "\n".join(_manifest_head(command) + tuple(sorted(names))) + "\n"


def manifest_entries(text: str, where: str, command: str = "counterexamples") -> list[str]:
    """The files a manifest of `tlacheck COMMAND` lists; a UsageError when `text` is not one."""
    lines = text.splitlines()
    if tuple(lines[:1]) != _manifest_head(command)[:1]:
        raise UsageError(f"{where} is not a manifest written by `tlacheck {command}`, and it is in the way "
                         "of the one it would write",
                         f"move or rename that file, or write {_WRITES[command]} elsewhere with --out DIR")
    return [line for line in lines if line and not line.startswith("#")]


@dataclass(frozen=True)
class FolderPlan:
    """What `tlacheck counterexamples` does in its output folder."""

    write: dict[str, bytes]  # relative path -> content, the manifest last
    remove: tuple[str, ...]  # files an earlier run wrote (its manifest lists them) that this run does not


def plan_folder(out: str | Path, produced: dict[str, bytes], command: str = "counterexamples") -> FolderPlan:
    """Plan writing `produced` (relative path -> bytes, with the MANIFEST among them) into `out`
    for `tlacheck COMMAND`,
    from the manifest an earlier run left there, never from a file's name: a file the earlier
    manifest lists may be overwritten, and is stale when not produced again; any other file is
    the user's and is neither removed nor overwritten. The one exception is a file that already
    holds exactly the bytes to be written (a folder from before manifests existed): keeping it
    changes nothing, and the new manifest adopts it. A produced name taken by another file is a
    UsageError naming each such file and what to do, raised before anything is written."""
    out = Path(out)
    earlier: set[str] = set()
    listed = inside(out, MANIFEST)
    if listed.is_file():
        try:
            text = listed.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {out / MANIFEST}: {exc}") from None
        earlier = set(manifest_entries(text, str(out / MANIFEST), command))
    taken = []
    for rel, data in sorted(produced.items()):
        if rel == MANIFEST or rel in earlier:
            continue
        path = inside(out, rel)
        if path.exists() and not (path.is_file() and path.read_bytes() == data):
            taken.append(rel)
    if taken:
        shown = ", ".join(taken[:5]) + (f" and {len(taken) - 5} more" if len(taken) > 5 else "")
        one = len(taken) == 1
        it = "it" if one else "them"
        raise UsageError(
            f"refusing to overwrite {'a file' if one else f'{len(taken)} files'} in {out} that `tlacheck "
            f"{command}` did not write ({'it is' if one else 'they are'} not in {out / MANIFEST}): {shown}",
            f"move or rename {it}, or write {_WRITES[command]} elsewhere with --out DIR; if an earlier version "
            f"of tlacheck wrote {it} (before it kept a manifest), delete {it} and run again")
    now = set(manifest_entries(produced[MANIFEST].decode("utf-8"), MANIFEST, command))
    stale = []
    for rel in sorted(earlier - now):
        try:
            path = inside(out, rel)
        except UsageError:
            raise UsageError(f"{out / MANIFEST} lists {rel!r}, which is not inside {out}: it was not written by "
                             "tlacheck", f"remove that line from {out / MANIFEST}") from None
        if path.is_file():
            stale.append(rel)
    write = {rel: data for rel, data in sorted(produced.items()) if rel != MANIFEST}
    write[MANIFEST] = produced[MANIFEST]
    return FolderPlan(write, tuple(stale))


def index(rows) -> str:
    """The folder's README.md: a table of its counterexamples, `rows` of (spec path, variant,
    expectation, steps, file prefix, whether it has swimlanes)."""
    out = ["# Counterexamples", "",
           "Generated by `tlacheck counterexamples` from the `expect ... violates` and `expect ... deadlocks`",
           "lines of the specs in `specs/`. Do not edit: regenerate (see the README), and",
           "`tests/test_artefacts.py` fails when this folder is out of date with the code.", "",
           "Each counterexample has a text trace (`.txt`), the `check --json` object (`.json`), an ITF trace",
           "(`.itf.json`), a Graphviz trace diagram (`.dot`, `.svg`) and, when more than one actor takes",
           "part, a swimlane diagram (`.swimlanes.dot`, `.swimlanes.svg`), and one offline HTML report",
           "(`.html`: the swimlanes, the states with what each step changed and the spec's source, stepped",
           "through with the keys; download it and open it in a browser).", "",
           f"`{MANIFEST}` lists the files `tlacheck counterexamples` wrote here: it overwrites and removes",
           "those only, and refuses to overwrite any other file (a file of yours stays as it is).", "",
           "| spec | variant | expectation | steps | diagram | files |", "| --- | --- | --- | --- | --- | --- |"]
    for spec, variant, expectation, steps, prefix, lanes in rows:
        name = PurePosixPath(prefix).name
        files = [f"[html]({prefix}.html)", f"[txt]({prefix}.txt)", f"[json]({prefix}.json)",
                 f"[itf]({prefix}.itf.json)", f"[dot]({prefix}.dot)"]
        if lanes:
            files.append(f"[swimlanes]({prefix}.swimlanes.svg)")
        out.append(f"| `{spec}` | {variant} | {expectation} | {steps} | [{name}.svg]({prefix}.svg) | "
                   f"{' · '.join(files)} |")
    return "\n".join(out) + "\n"
