// Print, for each file named, whether the extension takes it for a spec (isSpecText), as JSON
// lines [file, bool] (tests/test_vscode_extension.py). Usage: node test/recognise.js OUT FILE...
'use strict';
const fs = require('fs');
const path = require('path');
const spec = require(path.join(path.resolve(process.argv[2]), 'spec.js'));
for (const file of process.argv.slice(3)) {
  process.stdout.write(JSON.stringify([file, spec.isSpecText(fs.readFileSync(file, 'utf8'))]) + '\n');
}
