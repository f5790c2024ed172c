# Run (not sourced) by the sandbox's setup, outside the sandbox, in a repository's work tree:
# prints the id of every blob that was ever a secret path's content, one a line, so that
# bubblewrap can mask those objects (harness/git/secretObjects.ts). Reading history runs no driver.
set -f
old_ifs=$IFS
as_command() { git "$@"; }
ws=$TRACEGATE_WORKSPACE
top=$(git rev-parse --show-toplevel 2>/dev/null) || exit 0
. "$(dirname -- "$0")/secretPaths.sh"
secret_pathspecs
[ -n "$find_specs" ] || exit 0
secret_blobs
