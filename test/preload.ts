/**
 * @module Loaded before every test file (bunfig.toml): the test process and everything it starts (gateways, compiled
 * binaries, PostgreSQL clusters) make their temporary folders inside one folder of this run, removed when the
 * process exits, so no test has to remember to clean up and a run leaves nothing behind in /tmp.
 */
import { afterAll, setDefaultTimeout } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// End-to-end tests and their hooks start real servers (and sometimes compile the binary): seconds on a busy machine.
// bun test's default is 5 s for tests and hooks alike, and bunfig.toml has no setting for it.
setDefaultTimeout(30_000)

const runDir = mkdtempSync(join(tmpdir(), 'gw-run-'))
// Servers started as another user (PostgreSQL runs as `postgres` when the tests run as root) must reach their folders.
chmodSync(runDir, 0o755)
process.env.TMPDIR = runDir
// After the last test file (a global hook in a preload); servers still running then are stopped as the process exits.
// Removing a run's clusters and compiled binaries took 9.8 s on a busy disk (bun test fires no process 'exit' event).
afterAll(() => rmSync(runDir, { recursive: true, force: true, maxRetries: 3 }), 120_000)
