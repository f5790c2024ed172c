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

# Sets withheld to every secret path in the index or anywhere in history (reflogs and stashes too),
# one a line, less the templates judged public (see public_template), and public_paths to those.
tracked_secrets() {
  IFS=$nl
  history_unread=
  # shellcheck disable=SC2086
  history=$(as_command log --all --reflog --format= --name-only -- $find_specs 2>/dev/null) || history_unread=1
  # shellcheck disable=SC2086
  all=$({ as_command ls-files --full-name -- $find_specs 2>/dev/null; printf '%s\n' "$history"; } | sed '/^$/d' | sort -u)
  # A history git cannot read through (a ref to a blob bubblewrap masks) may hold a secret: fail closed.
  [ -z "$history_unread" ] || all="$all${all:+$nl}(a history git could not read)"
  withheld=
  public_paths=
  if [ -n "$TRACEGATE_PUBLIC_TEMPLATES" ] && [ -n "$all" ]; then
    listed_blobs=$(secret_blobs)
    for p in $all; do
      IFS=$old_ifs
      if public_template "$p"; then public_paths="$public_paths$p$nl"; else withheld="$withheld$p$nl"; fi
    done
  else
    withheld=$all
  fi
  IFS=$old_ifs
}

# Whether a tracked template path (from the top) is no secret: the harness judged every content it
# ever held, and its work-tree file, to hold only placeholders (harness/git/secretBlobs.ts hands
# over the public "<blob><TAB><path>" pairs in TRACEGATE_PUBLIC_TEMPLATES). Any content not judged
# public, in history or in the work tree (a real key written since), keeps the path withheld.
public_template() {
  unjudged=$(printf '%s\n' "$listed_blobs" | P=$1 awk -F '\t' '$2 == ENVIRON["P"]' | grep -vxF -e "$TRACEGATE_PUBLIC_TEMPLATES")
  [ -z "$unjudged" ] || return 1
  if [ -e "$top/$1" ] || [ -L "$top/$1" ]; then
    id=$(as_command hash-object --no-filters -- "$top/$1" 2>/dev/null) || return 1
    printf '%s\t%s\n' "$id" "$1" | grep -qxF -e "$TRACEGATE_PUBLIC_TEMPLATES" || return 1
  fi
  return 0
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

# Whether a path's name matches one secret glob (a glob without a slash names the last segment;
# `*` in a case pattern also crosses folders, which only widens the match).
glob_names() {
  case $1 in
    */*) case $2 in $1 | ${1#'**/'}) return 0 ;; esac ;;
    *) case ${2##*/} in $1) return 0 ;; esac ;;
  esac
  return 1
}

# Whether a path's name is a secret path by the policy's globs, and not a template judged public.
names_secret() {
  printf '%s' "$public_paths" | grep -qxF -e "$1" && return 1
  IFS=$nl
  for g in $TRACEGATE_SECRET_PATHS; do
    IFS=$old_ifs
    glob_names "$g" "$1" && return 0
  done
  IFS=$old_ifs
  return 1
}

# With public templates, a glob that names one cannot exclude (git has no "but not" pathspec): its
# exclude gives way to one literal exclude per withheld path. Rewrites exclude_specs.
exclude_withheld() {
  [ -n "$public_paths" ] || return 0
  globs=$exclude_specs
  exclude_specs=
  IFS=$nl
  for spec in $globs; do
    names_public=
    for p in $public_paths; do
      IFS=$old_ifs
      glob_names "${spec#':(top,exclude,glob)'}" "$p" && names_public=1
    done
    IFS=$nl
    [ -n "$names_public" ] || exclude_specs="$exclude_specs$nl$spec"
  done
  for p in $withheld; do exclude_specs="$exclude_specs$nl:(top,exclude,literal)$p"; done
  IFS=$old_ifs
}

# Whether a file was ever, under any of its names through renames, a secret path.
history_names_secret() {
  names_secret "$1" && return 0
  for name in $(as_command log --all --follow --format= --name-only -- "$1" 2>/dev/null | sort -u); do
    names_secret "$name" && return 0
  done
  return 1
}

