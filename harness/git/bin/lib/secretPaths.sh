# Sourced by the git shim. A repository that tracks a secret path, or tracked one in any commit,
# would print the secret through `git diff`, `git log -p`, `git show`, `git grep`, `git archive`
# or `git cat-file -p BLOB`, none of which names it (bubblewrap masks the work tree's file, and its
# objects, but git reads them through the index and history). The command runs; the secret is
# withheld: git itself is given exclude pathspecs for every secret glob, and a command that names
# a secret's object, or reads objects no pathspec can limit, is refused. TRACEGATE_SECRET_PATHS
# holds the policy's secret globs, one a line: without a slash a name at any depth, else anchored
# at the workspace.

nl='
'

# Sets find_specs and exclude_specs (one a line) for the secret globs, anchored at the top of the
# repository (which may sit below the workspace root).
secret_pathspecs() {
  prefix=
  case $top in "$ws"/*) prefix=${top#"$ws"/} ;; esac
  find_specs=
  exclude_specs=
  IFS=$nl
  for g in $TRACEGATE_SECRET_PATHS; do
    case $g in
      */*)
        if [ -n "$prefix" ]; then
          case $g in "$prefix"/*) g=${g#"$prefix"/} ;; '**/'*) ;; *) continue ;; esac
        fi
        ;;
      *) g="**/$g" ;;
    esac
    find_specs="$find_specs$nl:(top,glob)$g"
    exclude_specs="$exclude_specs$nl:(top,exclude,glob)$g"
  done
  IFS=$old_ifs
}

# The first secret path in the index or anywhere in history (reflogs and stashes too), or nothing.
first_tracked_secret() {
  IFS=$nl
  # shellcheck disable=SC2086
  { as_command ls-files --full-name -- $find_specs; as_command log --all --reflog --format= --name-only -- $find_specs; } 2>/dev/null | sed -n '/./{p;q;}'
  IFS=$old_ifs
}

# Every blob that was ever the content of a secret path (index, history, reflogs, stashes), one a
# line as "<id><TAB><path>" (a blob that was at two secret paths is listed for each).
secret_blobs() {
  IFS=$nl
  # shellcheck disable=SC2086
  { as_command ls-files -s --full-name -- $find_specs | awk -F '\t' '{ split($1, f, " "); print f[2] "\t" $2 }'
    as_command log --all --reflog -m --root --format= --raw --no-abbrev --no-renames -- $find_specs | awk -F '\t' '/^:/ { split($1, f, " "); print f[3] "\t" $2; print f[4] "\t" $2 }'
  } 2>/dev/null | grep -v '^0*	' | sort -u
  IFS=$old_ifs
}

# Whether a path's name is a secret path by the policy's globs (a glob without a slash names the
# last segment; `*` in a case pattern also crosses folders, which only widens the match).
names_secret() {
  IFS=$nl
  for g in $TRACEGATE_SECRET_PATHS; do
    case $g in
      */*) case $1 in $g | ${g#'**/'}) IFS=$old_ifs; return 0 ;; esac ;;
      *) case ${1##*/} in $g) IFS=$old_ifs; return 0 ;; esac ;;
    esac
  done
  IFS=$old_ifs
  return 1
}

# Whether a file was ever, under any of its names through renames, a secret path.
history_names_secret() {
  names_secret "$1" && return 0
  for name in $(as_command log --all --follow --format= --name-only -- "$1" 2>/dev/null | sort -u); do
    names_secret "$name" && return 0
  done
  return 1
}

