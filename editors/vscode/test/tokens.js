// Print the tokens of a spec file as JSON lines: [line, text, scopes] (tests/test_editor_grammar.py).
// Usage: node test/tokens.js FILE
'use strict';
const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const here = path.join(__dirname, '..');
const wasm = fs.readFileSync(path.join(here, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm')).buffer;
const onigLib = oniguruma.loadWASM(wasm).then(() => ({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (s) => new oniguruma.OnigString(s),
}));
const registry = new vsctm.Registry({
  onigLib,
  loadGrammar: async (scopeName) => {
    if (scopeName !== 'source.tlacheck') return null;
    const file = path.join(here, 'syntaxes', 'tlacheck.tmLanguage.json');
    return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
  },
});

registry.loadGrammar('source.tlacheck').then((grammar) => {
  const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n');
  let stack = vsctm.INITIAL;
  const out = [];
  lines.forEach((line, i) => {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens) out.push(JSON.stringify([i + 1, line.substring(t.startIndex, t.endIndex), t.scopes]));
    stack = r.ruleStack;
  });
  process.stdout.write(out.join('\n') + '\n');
});
