// `npm start`'s build step: compiles to dist/ (`npm run build`) only when a source changed since the
// last build it made. tsc's incremental build still reads and checks the whole program before it finds
// nothing to do (seconds of CPU on a loaded machine); comparing every source file's size and modification
// time with the stamp the last build left in dist/ takes milliseconds. Plain JavaScript: it runs before
// anything is compiled.
'use strict';
const { createHash } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** What the build reads: the compiled folders (and the pages copied from services/hub), its settings, the installed packages' versions. */
const SOURCES = ['services', 'shared', 'machines', 'workers'];
const FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const OUTPUT = path.join(ROOT, 'dist', 'services', 'main.js');

function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file, out);
    else if (entry.isFile()) out.push(file);
  }
  return out;
}

/** A hash of every source's path, size and modification time: any edit, addition or removal changes it. */
function fingerprint() {
  const hash = createHash('sha256');
  const files = [...SOURCES.flatMap((d) => walk(path.join(ROOT, d), [])), ...FILES.map((f) => path.join(ROOT, f)).filter(existsSync)].sort();
  for (const file of files) {
    const s = statSync(file);
    hash.update(`${path.relative(ROOT, file)}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const now = fingerprint();
const current = existsSync(OUTPUT) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === now;
if (!current) {
  process.stderr.write('compiling to dist/ (a source changed since the last build)\n');
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  writeFileSync(STAMP, `${now}\n`);
}
