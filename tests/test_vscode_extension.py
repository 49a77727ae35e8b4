"""editors/vscode's code (issue 37 item 3): compiled with tsc, its VS Code-free parts unit-tested
with node's test runner, a spec recognised by its first line that is not a comment, the problem
matcher reading what the command line really prints, and the .vsix built with @vscode/vsce. What
needs a VS Code binary (the language client, the commands, the webview) is not run here
(docs/editors.md, "Tested")."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editors" / "vscode"
NODE = shutil.which("node")
MODULES = VSCODE / "node_modules"

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed (.ci/run installs Debian's nodejs and npm)"),
    pytest.mark.skipif(not (MODULES / "typescript").is_dir() or not (MODULES / "@vscode" / "vsce").is_dir(),
                       reason="the extension's packages are not installed: run `npm ci` in editors/vscode "
                              "(.ci/run does)"),
    pytest.mark.xdist_group("vscode"),  # the .vsix build compiles into editors/vscode/out
]


def _node_bin(name: str) -> str:
    return str(MODULES / ".bin" / name)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> pathlib.Path:
    """src/*.ts compiled by tsc (strict) into a folder of the test's own."""
    out = tmp_path_factory.mktemp("out")
    done = subprocess.run([_node_bin("tsc"), "-p", str(VSCODE), "--outDir", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_issue_37_extension_compiles_and_its_unit_tests_pass(compiled):
    assert {p.name for p in compiled.iterdir()} == {"extension.js", "spec.js"}
    done = subprocess.run([NODE, "--test", str(VSCODE / "test" / "spec.test.js")], capture_output=True, text=True,
                          env={**os.environ, "TLACHECK_OUT": str(compiled)})
    assert done.returncode == 0, done.stdout + done.stderr
    counts = dict(re.findall(r"^# (pass|fail) (\d+)$", done.stdout, re.M))
    assert counts["fail"] == "0" and int(counts["pass"]) >= 6


def test_issue_37_every_spec_of_the_repository_is_recognised_and_no_other_file(compiled, tmp_path):
    specs = sorted(str(p) for p in (ROOT / "specs").rglob("*.spec")) + [str(VSCODE / "test" / "sample.spec")]
    opening_with_comments = [s for s in specs if not pathlib.Path(s).read_text(encoding="utf-8").startswith("spec ")]
    assert len(opening_with_comments) > 10  # the case VS Code's firstLine misses
    rpm = tmp_path / "python-foo.spec"
    rpm.write_text("# spec file for package python-foo\nName:    python-foo\nVersion: 1.0\n%description\n",
                   encoding="utf-8")
    pyinstaller = tmp_path / "main.spec"
    pyinstaller.write_text("# -*- mode: python ; coding: utf-8 -*-\na = Analysis(['main.py'])\n", encoding="utf-8")
    done = subprocess.run([NODE, str(VSCODE / "test" / "recognise.js"), str(compiled), *specs, str(rpm),
                           str(pyinstaller)], capture_output=True, text=True, check=True)
    verdicts = dict(json.loads(line) for line in done.stdout.splitlines())
    # the header is optional (docs/language.md): a file without one (a library that others
    # import) cannot be told by its text, and files.associations names it (docs/editors.md)
    headerless = [s for s in specs if not re.search(r"^spec \w+", pathlib.Path(s).read_text(encoding="utf-8"), re.M)]
    assert len(headerless) < len(specs) / 10
    assert [s for s in specs if not verdicts[s]] == headerless
    assert (verdicts[str(rpm)], verdicts[str(pyinstaller)]) == (False, False)


def test_issue_37_the_problem_matcher_reads_what_check_prints(compiled, tmp_path):
    bad = tmp_path / "bad.spec"
    bad.write_text("# a comment first\nspec Bad\nvar count: int = 0\naction Up:\n    cuont = count + 1\n",
                   encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "tlacheck", "check", str(bad)], capture_output=True, text=True,
                         env={**os.environ, "NO_COLOR": "1"})
    [expected] = json.loads(subprocess.run([sys.executable, "-m", "tlacheck", "check", str(bad), "--json"],
                                           capture_output=True, text=True).stdout)["errors"]
    script = ("const spec = require(process.argv[1] + '/spec.js');"
              "const pattern = require(process.argv[2]).contributes.problemMatchers[0].pattern;"
              "let text = ''; process.stdin.on('data', (d) => text += d);"
              "process.stdin.on('end', () => console.log(JSON.stringify(spec.parseProblems(text, pattern))));")
    done = subprocess.run([NODE, "-e", script, str(compiled), str(VSCODE / "package.json")], input=run.stderr,
                          capture_output=True, text=True, check=True)
    [problem] = json.loads(done.stdout)
    assert (problem["file"], problem["line"], problem["column"], problem["code"], problem["severity"]) == \
        (expected["file"], expected["line"], expected["column"], expected["code"], expected["severity"])
    assert problem["message"] == expected["message"] and problem["hint"] == expected["hint"]


def test_issue_37_the_vsix_builds_with_vsce_and_holds_the_extension(tmp_path):
    vsix = tmp_path / "tlacheck.vsix"
    done = subprocess.run([_node_bin("vsce"), "package", "--out", str(vsix)], cwd=VSCODE, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        packaged = json.loads(z.read("extension/package.json"))
    assert packaged["contributes"] == manifest["contributes"]
    assert packaged["main"] == "./out/extension.js"
    for name in ("extension/out/extension.js", "extension/out/spec.js", "extension/syntaxes/tlacheck.tmLanguage.json",
                 "extension/language-configuration.json", "extension/LICENSE.txt", "extension.vsixmanifest",
                 "extension/node_modules/vscode-languageclient/package.json"):
        assert name in names, name
    for name in names:  # the sources, the tests and the build tools stay out
        assert not name.startswith(("extension/src/", "extension/test/", "extension/node_modules/typescript/",
                                    "extension/node_modules/@vscode/", "extension/node_modules/@types/",
                                    "extension/node_modules/vscode-textmate/")), name
