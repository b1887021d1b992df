#!/usr/bin/env node
// PathFinding.js baseline for nodes/lib/arnie_grid/benches/compare.rs.
//
// Usage: node pathfinding_js.js QUERY_FILE
// QUERY_FILE (written by the Rust bench):
//   line 1: "width height"
//   next `height` lines: the map, '.' free, '@' blocked (row 0 = y 0)
//   then "N", then N lines "sx sy gx gy"
// Prints one JSON object: {"impl", "queries", "mean_us", "p99_us", "lengths": [...]}
// (length -1 when no path). Each query runs AStarFinder with
// DiagonalMovement.OnlyWhenNoObstacles and the octile heuristic on a fresh clone of the
// grid (PathFinding.js grids are single-use); only findPath is timed.
'use strict';

const fs = require('fs');
const PF = require('pathfinding');

function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node pathfinding_js.js QUERY_FILE');
    process.exit(2);
  }
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const [width, height] = lines[0].trim().split(/\s+/).map(Number);
  const matrix = [];
  for (let y = 0; y < height; y++) {
    const row = lines[1 + y];
    const out = new Array(width);
    for (let x = 0; x < width; x++) out[x] = row.charCodeAt(x) === 46 /* '.' */ ? 0 : 1;
    matrix.push(out);
  }
  const n = Number(lines[1 + height]);
  const queries = [];
  for (let i = 0; i < n; i++) queries.push(lines[2 + height + i].trim().split(/\s+/).map(Number));

  const base = new PF.Grid(width, height, matrix);
  const finder = new PF.AStarFinder({
    diagonalMovement: PF.DiagonalMovement.OnlyWhenNoObstacles,
    heuristic: PF.Heuristic.octile,
  });
  const run = (q) => finder.findPath(q[0], q[1], q[2], q[3], base.clone());
  // Warm up the JIT on a few queries (untimed).
  for (let i = 0; i < Math.min(3, n); i++) run(queries[i]);

  const times = [];
  const lengths = [];
  for (const q of queries) {
    const grid = base.clone();
    const t0 = process.hrtime.bigint();
    const path = finder.findPath(q[0], q[1], q[2], q[3], grid);
    const t1 = process.hrtime.bigint();
    times.push(Number(t1 - t0) / 1000);
    let len = path.length ? 0 : -1;
    for (let i = 1; i < path.length; i++) {
      const dx = path[i][0] - path[i - 1][0];
      const dy = path[i][1] - path[i - 1][1];
      len += dx !== 0 && dy !== 0 ? Math.SQRT2 : 1;
    }
    lengths.push(len);
  }
  const sorted = times.slice().sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / Math.max(1, times.length);
  const p99 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] : 0;
  console.log(JSON.stringify({ impl: 'PathFinding.js ' + require('pathfinding/package.json').version, queries: n, mean_us: mean, p99_us: p99, lengths }));
}

main();
