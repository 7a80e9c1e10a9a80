import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/*
 * Finds SQL written as text in TypeScript sources (docs/architecture.md, "ORM or plain SQL"): every
 * hand-written statement lives in a query module (`*.queries.ts`), so SQL in a string or template
 * literal anywhere else is a statement in the wrong place. Comments are not literals and are not read.
 */

/** A literal that reads as SQL: where it is and how it begins. */
export interface SqlLiteral {
  file: string;
  line: number;
  text: string;
}

/*
 * What marks a literal as SQL: a statement's opening words, or a clause no English sentence or log
 * message has (a qualified column compared, a bound placeholder, a join with its condition, a cast).
 * A template's substitutions count as a word, so `select ${cols} from t` is found too.
 */
const SQL_PATTERNS: RegExp[] = [
  /(^|\()\s*select\b[\s\S]*?\bfrom\b/,
  /^\s*select\s+(\d|[a-z_]+\s*\(|pg_|:|\$|\?)/,
  /\binsert\s+into\s+[a-z_]/,
  /\bupdate\s+[a-z_][\w.]*(\s+(as\s+)?[a-z_]\w*)?\s+set\s+[a-z_]/,
  /\bdelete\s+from\s+[a-z_]/,
  /\bwith\s+[a-z_]\w*\s+as\s+(materialized\s+|not\s+materialized\s+)?\(/,
  /\bjoin\s+[a-z_][\w.]*(\s+(as\s+)?[a-z_]\w*)?\s+on\s+[a-z_][\w.]*\s*=/,
  /\b[a-z_]\w*\.[a-z_]\w*\s*(=|<>|<=|>=|<|>)\s*(\?|\$\d|:[a-z_]|[a-z_]\w*\.[a-z_])/,
  /\b[a-z_]\w*\s*(=|<>|<=|>=|<|>)\s*(\?|\$\d)(::|\s|$|\))/,
  /\border\s+by\s+[a-z_][\w.]*(\s+(asc|desc))?\s*(,|$|limit\b)/,
  /\bgroup\s+by\s+[a-z_][\w.]*/,
  /\bon\s+conflict\s*\(/,
  /\bfor\s+update(\s+skip\s+locked)?\s*$/,
  /\bpg_[a-z_]+\s*\(/,
  /\bjsonb?_(to_recordset|build_object|agg|array_elements)/,
  /^\s*(begin|commit|rollback)(\s+isolation\s+level\s+[a-z ]+)?\s*;?\s*$/,
  /^\s*(listen|unlisten|notify)\s+[a-z_${]/,
  /^\s*set\s+(local\s+|session\s+)?[a-z_][\w.]*\s*(=|to)\s/,
  /^\s*(create|alter|drop|truncate)\s+(table|index|database|schema|sequence|function|trigger|view|unique)\b/,
  /^\s*explain\s*(\(|analyze|select)/,
  /\bfrom\s*\(\s*select\b/,
  /\bcase\s+when\b[\s\S]*\bthen\b/,
  /[\w)?]::(int|int2|int4|int8|bigint|smallint|text|date|time|timestamp|timestamptz|jsonb?|float8|numeric|uuid|bytea|boolean|regclass)(\[\])?\b/,
];

/*
 * The patterns are lower case, as this code base writes SQL; a literal in upper case (SELECT … FROM) is
 * read lowered. A sentence's capital (`Select a slot from the list`) is neither, so prose is left alone.
 */
const UPPER_SQL = /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH|BEGIN|COMMIT|ROLLBACK|LISTEN|NOTIFY|SET|CREATE|ALTER|DROP|TRUNCATE|EXPLAIN|JOIN|WHERE)\b/;

export function looksLikeSql(text: string): boolean {
  const matches = (t: string) => SQL_PATTERNS.some((p) => p.test(t));
  return matches(text) || (UPPER_SQL.test(text) && matches(text.toLowerCase()));
}

/** The SQL-looking string and template literals of one source file. */
export function findSqlLiterals(file: string, source: string): SqlLiteral[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: SqlLiteral[] = [];
  const report = (node: ts.Node, text: string) => {
    if (!looksLikeSql(text)) return;
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.push({ file, line: line + 1, text: text.replace(/\s+/g, ' ').trim().slice(0, 100) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      // An import path or a module name is not text the program sends anywhere.
      if (!ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent) && !ts.isExternalModuleReference(node.parent)) report(node, node.text);
      return;
    }
    if (ts.isTemplateExpression(node)) {
      report(node, node.head.text + node.templateSpans.map((s) => ` x ${s.literal.text}`).join(''));
      node.templateSpans.forEach((s) => visit(s.expression));
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Every `.ts` file under the folders, as paths relative to `root` with `/` separators. */
export function sourceFiles(root: string, folders: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        out.push(relative(root, path).split(sep).join('/'));
      }
    }
  };
  folders.forEach((f) => walk(join(root, f)));
  return out.sort();
}

export function findSqlLiteralsIn(root: string, files: string[]): SqlLiteral[] {
  return files.flatMap((f) => findSqlLiterals(f, readFileSync(join(root, f), 'utf8')));
}
