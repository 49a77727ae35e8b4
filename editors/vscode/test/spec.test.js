// Unit tests of src/spec.ts, compiled (node --test test/; tests/test_vscode_extension.py runs
// them on a fresh compilation, whose folder TLACHECK_OUT names; default out/).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const manifest = require('../package.json');
const spec = require(path.join(process.env.TLACHECK_OUT || path.join(__dirname, '..', 'out'), 'spec.js'));

test('a spec is recognised by its first line that is not a comment', () => {
  assert.ok(spec.isSpecText('spec NotifyRace\nvar x: int = 0\n'));
  assert.ok(spec.isSpecText('# a model of the race\n#\n\n   # indented\nspec NotifyRace   # trailing\n'));
  assert.ok(spec.isSpecText('\r\n# windows lines\r\nspec T\r\n'));
  assert.ok(!spec.isSpecText('# comments only\n\n'));
  assert.ok(!spec.isSpecText(''));
  assert.ok(!spec.isSpecText('var x: int = 0\nspec Late\n'));  // the header comes first
  assert.ok(!spec.isSpecText('specification T\n'));
});

test('RPM and PyInstaller spec files are not claimed', () => {
  const rpm = '# spec file for package python-foo\n#\nName:           python-foo\nVersion:        1.0\n' +
    '%define debug_package %{nil}\n%description\nspec foo\n';
  const pyinstaller = "# -*- mode: python ; coding: utf-8 -*-\n\na = Analysis(['main.py'])\nspec = None\n";
  assert.ok(!spec.isSpecText(rpm));
  assert.ok(!spec.isSpecText(pyinstaller));
});

test('the firstLine regex of the manifest agrees with the header on line 1', () => {
  const [language] = manifest.contributes.languages;
  const firstLine = new RegExp(language.firstLine);
  for (const line of ['spec T', 'spec NotifyRace  ', 'spec T # why']) {
    assert.ok(firstLine.test(line), line);
    assert.ok(spec.HEADER.test(line), line);
  }
  for (const line of ['# spec T', 'Name: foo', 'spec', 'spec 9lives']) {
    assert.ok(!firstLine.test(line), line);
    assert.ok(!spec.HEADER.test(line), line);
  }
});

test('tlacheck is started by its interpreter when one is set, else by its path', () => {
  assert.deepStrictEqual(spec.tlacheckCommand({}, ['lsp']), { command: 'tlacheck', args: ['lsp'] });
  assert.deepStrictEqual(spec.tlacheckCommand({ path: ' /opt/v/bin/tlacheck ' }, ['check', 'a.spec']),
    { command: '/opt/v/bin/tlacheck', args: ['check', 'a.spec'] });
  assert.deepStrictEqual(spec.tlacheckCommand({ python: '/opt/v/bin/python', path: 'x' }, ['lsp']),
    { command: '/opt/v/bin/python', args: ['-m', 'tlacheck', 'lsp'] });
});

test('problems are read with the problem matcher of the manifest, hints attached', () => {
  const pattern = manifest.contributes.problemMatchers[0].pattern;
  const output = 'tlacheck 0.1.0: checking a.spec\n' +
    'specs/a.spec:12:5: error[E100]: unknown variable `cuont`\n  12 |     cuont = 1\n      ^^^^^\n' +
    '  = hint: did you mean `count`?\n' +
    'C:\\work\\b.spec:3:1: warning[W201]: variable `x` is never read\n';
  assert.deepStrictEqual(spec.parseProblems(output, pattern), [
    { file: 'specs/a.spec', line: 12, column: 5, severity: 'error', code: 'E100',
      message: 'unknown variable `cuont`', hint: 'did you mean `count`?' },
    { file: 'C:\\work\\b.spec', line: 3, column: 1, severity: 'warning', code: 'W201',
      message: 'variable `x` is never read' },
  ]);
});

test('the report of a spec is named after it', () => {
  assert.strictEqual(spec.reportName('/w/specs/notify_race.spec'), 'notify_race.html');
  assert.strictEqual(spec.reportName('C:\\w\\x.spec'), 'x.html');
  assert.strictEqual(spec.reportName('model'), 'model.html');
});
