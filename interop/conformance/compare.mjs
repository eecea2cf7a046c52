// compare.mjs OURS GOSDK EXPECTED: the checks of two runs of the suite
// (their --output-dir), counted; fails when a check the Go SDK passes is
// not passed by ours, unless its scenario is an expected failure (listed,
// with its reason, in EXPECTED's server) or the check a known difference
// (EXPECTED's differences: scenario/check), and on a difference listed
// that is not one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// With --report first, it says the same and fails on nothing. With
// --stateless (the 2026-07-28 leg), EXPECTED's sections are stateless and
// stateless-differences (a stateless entry: a scenario, or
// scenario:check-id).
const args = process.argv.slice(2);
const report = args[0] === '--report';
if (report) args.shift();
const stateless = args[0] === '--stateless';
if (stateless) args.shift();
const [ours, gosdk, expectedFile] = args;

// checks reads a run: scenario name -> its checks.
function checks(dir) {
  const out = new Map();
  for (const d of readdirSync(dir)) {
    const m = /^server-(.*)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(d);
    if (m) out.set(m[1], JSON.parse(readFileSync(join(dir, d, 'checks.json'), 'utf8')));
  }
  return out;
}

function count(run) {
  let passed = 0, failed = 0;
  for (const list of run.values()) {
    for (const c of list) {
      if (c.status === 'SUCCESS') passed++;
      if (c.status === 'FAILURE') failed++;
    }
  }
  return { passed, failed };
}

const a = checks(ours), b = checks(gosdk);
const listed = parse(readFileSync(expectedFile, 'utf8')) ?? {};
const expected = new Set((stateless ? listed.stateless : listed.server) ?? []);
const differences = new Set((stateless ? listed['stateless-differences'] : listed.differences) ?? []);
const ca = count(a), cb = count(b);
console.log(`\n== one run of the suite, two servers`);
console.log(`examples/everything: ${ca.passed} checks passed, ${ca.failed} failed (${a.size} scenarios)`);
console.log(`Go SDK everything-server: ${cb.passed} checks passed, ${cb.failed} failed (${b.size} scenarios)`);

let bad = 0;
for (const [scenario, list] of b) {
  for (const c of list) {
    if (c.status !== 'SUCCESS') continue;
    const mine = (a.get(scenario) ?? []).find((x) => x.id === c.id);
    if (mine?.status === 'SUCCESS') continue;
    const known = !report && (expected.has(scenario) || expected.has(`${scenario}:${c.id}`) || differences.delete(`${scenario}/${c.id}`));
    if (!known) bad++;
    console.log(`${known ? 'expected: ' : report ? 'differs: ' : 'FAIL: '}the Go SDK passes ${scenario}/${c.id}, we ${mine ? mine.status : 'have no such check'}${mine?.errorMessage ? ': ' + mine.errorMessage : ''}`);
  }
}
if (report) {
  console.log(`${bad} check(s) the Go SDK passes and we do not (reported only)`);
  process.exit(0);
}
for (const d of differences) {
  bad++;
  console.log(`STALE: ${d} is listed among the differences, and is not one`);
}
if (bad) {
  console.log(`\n${bad} check(s) the Go SDK passes and we do not, not listed in ${expectedFile}`);
  process.exit(1);
}
console.log('every check the Go SDK passes, we pass (but for the expected failures listed)');
