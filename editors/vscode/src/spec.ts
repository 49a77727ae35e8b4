// What the extension decides without VS Code: whether a text is a tlacheck spec, the command
// line that runs tlacheck, and the problems a run printed. Unit-tested with node's test runner
// (test/spec.test.js) on the compiled file; extension.ts does the rest through the VS Code API.

/** A spec's header, `spec NAME` (docs/language.md, "The spec header"), with an optional comment. */
export const HEADER = /^spec[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*(#.*)?$/;

/** How far `isSpecText` reads: the header comes before any declaration, after comments. */
export const SCAN_LINES = 200;

/**
 * Whether `text` is a tlacheck spec: its first line that is neither blank nor a `#` comment is
 * the header `spec NAME`. VS Code's `firstLine` regex sees line 1 only, so a spec that opens
 * with comments (as most of the repository's do) is recognised here, when it is opened; an RPM
 * spec (`Name: ...`, `%define ...`) or a PyInstaller spec (Python) never has such a line first.
 */
export function isSpecText(text: string): boolean {
  const lines = text.split(/\r?\n/, SCAN_LINES);
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      continue;
    }
    return HEADER.test(line);
  }
  return false;
}

/** The settings that say how to start tlacheck (package.json, contributes.configuration). */
export interface Launcher {
  /** `tlacheck.python`: a Python interpreter with tlacheck installed (runs `python -m tlacheck`). */
  python?: string;
  /** `tlacheck.path`: the tlacheck executable (default `tlacheck`, found on PATH). */
  path?: string;
}

/** The program and the arguments that run `tlacheck ARGS`: the interpreter wins over the path. */
export function tlacheckCommand(launcher: Launcher, args: string[]): { command: string; args: string[] } {
  const python = (launcher.python || '').trim();
  if (python !== '') {
    return { command: python, args: ['-m', 'tlacheck', ...args] };
  }
  const path = (launcher.path || '').trim();
  return { command: path === '' ? 'tlacheck' : path, args };
}

/** The pattern of the problem matcher `$tlacheck` (package.json, contributes.problemMatchers). */
export interface MatcherPattern {
  regexp: string;
  file: number;
  line: number;
  column: number;
  severity: number;
  code: number;
  message: number;
}

/** One `file:line:col: error[CODE]: message` line of a run, lines and columns from 1. */
export interface Problem {
  file: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  code: string;
  message: string;
  /** the ` = hint: ...` line that follows it, if any */
  hint?: string;
}

/** The problems of a run's output, read with the problem matcher's own pattern (one regex for
 * tasks and for the commands). */
export function parseProblems(output: string, pattern: MatcherPattern): Problem[] {
  const regexp = new RegExp(pattern.regexp);
  const out: Problem[] = [];
  for (const line of output.split(/\r?\n/)) {
    const m = regexp.exec(line);
    if (m) {
      out.push({
        file: m[pattern.file],
        line: Number(m[pattern.line]),
        column: Number(m[pattern.column]),
        severity: m[pattern.severity] === 'warning' ? 'warning' : 'error',
        code: m[pattern.code],
        message: m[pattern.message],
      });
      continue;
    }
    const hint = /^\s+= hint: (.*)$/.exec(line);
    if (hint && out.length > 0 && out[out.length - 1].hint === undefined) {
      out[out.length - 1].hint = hint[1];
    }
  }
  return out;
}

/** The name of the HTML report of a spec file: its base name, `.spec` replaced by `.html`. */
export function reportName(specPath: string): string {
  const base = specPath.split(/[\\/]/).pop() || 'spec';
  return (base.endsWith('.spec') ? base.slice(0, -'.spec'.length) : base) + '.html';
}
