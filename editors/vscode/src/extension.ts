// The VS Code extension: the language client of `tlacheck lsp`, the recognition of specs whose
// first line is a comment, and the commands check, verify and open report (docs/editors.md).
import * as cp from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { isSpecText, Launcher, MatcherPattern, parseProblems, reportName, SCAN_LINES, tlacheckCommand } from './spec';

const LANGUAGE = 'tlacheck';
let client: LanguageClient | undefined;

function launcher(): Launcher {
  const config = vscode.workspace.getConfiguration('tlacheck');
  return { python: config.get<string>('python'), path: config.get<string>('path') };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('tlacheck');
  const problems = vscode.languages.createDiagnosticCollection('tlacheck run');
  context.subscriptions.push(output, problems);

  // `firstLine` (package.json) sees line 1 only: a spec that opens with comments is recognised here.
  const recognise = (doc: vscode.TextDocument) => {
    const head = doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, SCAN_LINES), 0));
    if (doc.languageId !== LANGUAGE && doc.uri.scheme !== 'output' && isSpecText(head)) {
      void vscode.languages.setTextDocumentLanguage(doc, LANGUAGE);
    }
  };
  vscode.workspace.textDocuments.forEach(recognise);
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(recognise));

  const pattern: MatcherPattern = context.extension.packageJSON.contributes.problemMatchers[0].pattern;
  const run = async (args: (file: string) => string[], after?: (file: string) => Promise<void>) => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== LANGUAGE) {
      void vscode.window.showErrorMessage('tlacheck: open a spec first');
      return;
    }
    const doc = editor.document;
    await doc.save();
    const file = doc.uri.fsPath;
    const cwd = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath ?? path.dirname(file);
    const { command, args: argv } = tlacheckCommand(launcher(), args(file));
    output.show(true);
    output.appendLine(`$ ${[command, ...argv].join(' ')}`);
    const code = await new Promise<number | null>((resolve) => {
      const child = cp.spawn(command, argv, { cwd, env: { ...process.env, NO_COLOR: '1' } });
      let text = '';
      const take = (chunk: Buffer) => {
        text += chunk.toString();
        output.append(chunk.toString());
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      child.on('error', (err) => {
        output.appendLine(`tlacheck could not be started: ${err.message} (settings tlacheck.path, tlacheck.python)`);
        resolve(null);
      });
      child.on('close', (exit) => {
        showProblems(problems, parseProblems(text, pattern), cwd);
        resolve(exit);
      });
    });
    output.appendLine(`[exit code ${code}]`);
    if (after && code !== null && code !== 1 && code !== 2) {
      await after(file);
    }
  };

  const reports = vscode.Uri.joinPath(context.globalStorageUri, 'reports');
  context.subscriptions.push(
    vscode.commands.registerCommand('tlacheck.check', () => run((file) => ['check', file])),
    vscode.commands.registerCommand('tlacheck.verify', () => run((file) => ['verify', file])),
    vscode.commands.registerCommand('tlacheck.openReport', async () => {
      fs.mkdirSync(reports.fsPath, { recursive: true });
      const html = (file: string) => path.join(reports.fsPath, reportName(file));
      await run((file) => ['check', file, '--html', html(file)], async (file) => {
        if (!fs.existsSync(html(file))) {
          void vscode.window.showInformationMessage('tlacheck: no counterexample, so no report (see the output)');
          return;
        }
        const panel = vscode.window.createWebviewPanel('tlacheckReport', reportName(file), vscode.ViewColumn.Beside,
          { enableScripts: true });
        panel.webview.html = fs.readFileSync(html(file), 'utf8');
      });
    }),
  );

  if (vscode.workspace.getConfiguration('tlacheck').get<boolean>('server.enabled', true)) {
    const { command, args } = tlacheckCommand(launcher(), ['lsp']);
    const server: ServerOptions = { command, args };
    const options: LanguageClientOptions = { documentSelector: [{ language: LANGUAGE }], outputChannel: output };
    client = new LanguageClient('tlacheck', 'tlacheck language server', server, options);
    await client.start();
  }
}

function showProblems(collection: vscode.DiagnosticCollection, found: ReturnType<typeof parseProblems>,
                      cwd: string): void {
  collection.clear();
  const byFile = new Map<string, vscode.Diagnostic[]>();
  for (const p of found) {
    const file = path.resolve(cwd, p.file);
    const at = new vscode.Position(p.line - 1, p.column - 1);
    const d = new vscode.Diagnostic(new vscode.Range(at, at.translate(0, 1)),
      p.hint ? `${p.message} (hint: ${p.hint})` : p.message,
      p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error);
    d.code = p.code;
    d.source = 'tlacheck';
    byFile.set(file, [...(byFile.get(file) ?? []), d]);
  }
  byFile.forEach((diags, file) => collection.set(vscode.Uri.file(file), diags));
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
