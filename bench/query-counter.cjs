'use strict';
/*
 * Loaded with `--require` into the API and the worker when BENCH_COUNT_QUERIES=1 (pg_stat_statements
 * is not available): counts every statement sent through node-postgres, by its text, and writes
 * the totals to $BENCH_QUERY_COUNT_DIR/queries-<pid>.json on SIGUSR2 and at exit. Plain CommonJS
 * because it is loaded before tsx's TypeScript hooks.
 */
const fs = require('node:fs');
const path = require('node:path');
const pg = require('pg');

const dir = process.env.BENCH_QUERY_COUNT_DIR;
if (dir) {
  const file = path.join(dir, `queries-${process.pid}.json`);
  const counts = new Map();
  let total = 0;
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config) {
    const text = typeof config === 'string' ? config : config && config.text;
    if (typeof text === 'string') {
      total++;
      // MikroORM inlines values into the SQL text: fold literals so one statement is one key.
      const key = text
        .replace(/'(?:[^']|'')*'/g, '?')
        .replace(/\b\d+(?:\.\d+)?\b/g, '?')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 160);
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    return original.apply(this, arguments);
  };
  const write = () => {
    try {
      // Write then rename, so the bench never reads a half-written file.
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ pid: process.pid, writtenAt: Date.now(), total, statements: Object.fromEntries(counts) }));
      fs.renameSync(`${file}.tmp`, file);
    } catch {
      // the bench reads what it can
    }
  };
  process.on('SIGUSR2', write);
  process.on('exit', write);
}
