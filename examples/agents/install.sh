#!/usr/bin/env bash
# Installs the real agents that tests/e2e/realAgents.test.ts runs through tracegate, each in a folder
# of its own under $TRACEGATE_AGENTS_DIR (default ~/.cache/tracegate-agents/<name>), from the npm
# registry only, at the versions docs/agents.md lists (the last ones that run on Node 20).
# Install scripts are not run (npm 11's default): every agent here works from what the registry ships.
set -euo pipefail
dir="${TRACEGATE_AGENTS_DIR:-$HOME/.cache/tracegate-agents}"
mkdir -p "$dir"
# With names (install.sh langgraph qwen), only those; with none, every agent below.
wanted=" $* "
install() {
  local name=$1; shift
  if [ "$wanted" != "  " ] && [[ "$wanted" != *" $name "* ]]; then return 0; fi
  # Already there at these versions: nothing to do (a CI cache keeps the folder between runs).
  if [ -f "$dir/$name/.installed" ] && [ "$(cat "$dir/$name/.installed")" = "$*" ]; then return 0; fi
  rm -rf "${dir:?}/$name" && mkdir -p "$dir/$name"
  npm install --prefix "$dir/$name" --no-audit --no-fund --no-save --loglevel=error "$@" >/dev/null
  echo "$*" > "$dir/$name/.installed"
}
install langgraph @langchain/langgraph@1.7.3 @langchain/openai@1.5.8 @langchain/core@1.4.0
install agents @openai/agents@0.14.3 ai@6.0.326 @ai-sdk/openai@3.0.141 zod@4.6.7
install opencode opencode-ai@1.18.33
install qwen @qwen-code/qwen-code@0.24.4
install gemini @google/gemini-cli@0.61.0
install codex @openai/codex@0.171.0
install claude @anthropic-ai/claude-code@2.1.197
echo "agents installed in $dir"
