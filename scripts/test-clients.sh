#!/usr/bin/env bash
# The real agent CLIs as clients: installs Claude Code and Codex CLI, pinned, from the npm registry into a folder of
# their own (never the project's dependencies; nothing is downloaded at test time besides this npm install, both
# ship their native binary inside an npm package), then runs `claude -p` and `codex exec` against the gateway and
# mock upstreams of every family (test/clients/agent-clis.cli-test.ts). The MCP Inspector (its CLI mode), pinned
# in a folder of its own, and the same two CLIs then use the gateway as their MCP server
# (test/clients/mcp-clients.cli-test.ts). Ends with an `N passed, N failed` line and fails when any case fails.
# scripts/test.sh calls it; it also runs alone.
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUDE_CODE_VERSION=2.1.330
CODEX_VERSION=0.169.0
INSPECTOR_VERSION=2.12.0
dir="${AGENT_CLIS_DIR:-.tools/agent-clis/claude-code-$CLAUDE_CODE_VERSION-codex-$CODEX_VERSION}"
if [ ! -f "$dir/.installed" ]; then
  echo "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION and @openai/codex@$CODEX_VERSION into $dir"
  mkdir -p "$dir"
  # --ignore-scripts: Claude Code's postinstall only copies its platform binary over a stub; the test runs the
  # platform package's binary directly.
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION"
  touch "$dir/.installed"
fi
inspector_dir="${MCP_INSPECTOR_DIR:-.tools/mcp-inspector-$INSPECTOR_VERSION}"
if [ ! -f "$inspector_dir/.installed" ]; then
  echo "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $inspector_dir"
  mkdir -p "$inspector_dir"
  # --ignore-scripts: its postinstall prepares the web and TUI clients; the CLI mode needs none of it.
  npm install --prefix "$inspector_dir" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
  touch "$inspector_dir/.installed"
fi
log=$(mktemp)
status=0
AGENT_CLIS_DIR="$(cd "$dir" && pwd)" MCP_INSPECTOR_DIR="$(cd "$inspector_dir" && pwd)" timeout 400 bun test ./test/clients/agent-clis.cli-test.ts ./test/clients/mcp-clients.cli-test.ts 2>&1 | tee "$log" || status=$?
passed=$(grep -Eo '^ *[0-9]+ pass$' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
failed=$(grep -Eo '^ *[0-9]+ fail$' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
rm -f "$log"
[ "$status" -ne 0 ] && [ "$failed" = 0 ] && failed=1
echo "agent CLIs (claude-code $CLAUDE_CODE_VERSION, codex $CODEX_VERSION, mcp inspector $INSPECTOR_VERSION): ${passed} passed, ${failed} failed"
exit "$status"
