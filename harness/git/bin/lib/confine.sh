# Sourced by the git shim. The repository must be the workspace's own: its git folder and common
# folder, the object stores it borrows (alternates), the links inside it, every config file it
# includes and its work tree stay in the workspace, and it is not a partial clone (which fetches
# missing objects from a remote). Otherwise `git show`, `git config --list` or `git check-attr`
# would read another repository or a file outside the workspace (a home folder's credentials).

refuse() { echo "git: refused: $1" >&2; exit 128; }

inside() {
  # -m: a path whose end does not exist yet (a folder git would create) is resolved as far as it goes.
  p=$(readlink -m -- "$1" 2>/dev/null) || p=$1
  case $p in "$ws"|"$ws"/*) return 0 ;; *) return 1 ;; esac
}

confine_repository() {
  ws=$(CDPATH= cd -P -- "$TRACEGATE_WORKSPACE" 2>/dev/null && pwd -P) || ws=$TRACEGATE_WORKSPACE
  base=$( if [ -n "$cdir" ]; then cd -- "$cdir" 2>/dev/null || exit; fi; pwd -P )
  case $listing in '"'*|*'
"'*) refuse 'a config file has a name git had to quote' ;; esac
  origins=$(printf '%s\n' "$listing" | sed -n 's/^file:\([^	]*\)	.*/\1/p' | sort -u)
  IFS='
'
  for origin in $origins; do
    case $origin in /*) ;; *) origin=$base/$origin ;; esac
    inside "$origin" || refuse "the repository reads config from $origin, outside the workspace"
  done
  IFS=$old_ifs
  if printf '%s\n' "$names" | grep -qiE '^(extensions\.partialclone|remote\..*\.(promisor|partialclonefilter))$'; then
    refuse 'a partial clone fetches missing objects from its remote'
  fi
  dirs=$(as_command rev-parse --path-format=absolute --git-dir --git-common-dir 2>/dev/null) || dirs=
  IFS='
'
  for dir in $dirs; do
    inside "$dir" || refuse "the repository $dir is outside the workspace"
    if [ -f "$dir/objects/info/alternates" ]; then
      while IFS= read -r alt; do
        case $alt in '' | '#'*) continue ;; /*) ;; *) alt=$dir/objects/$alt ;; esac
        inside "$alt" || refuse "the repository borrows objects from $alt, outside the workspace"
      done < "$dir/objects/info/alternates"
    fi
    outward=$(find "$dir" -type l 2>/dev/null | while IFS= read -r link; do inside "$link" || { printf '%s' "$link"; break; }; done)
    [ -z "$outward" ] || refuse "$outward links outside the workspace"
  done
  IFS=$old_ifs
  top=$(as_command rev-parse --show-toplevel 2>/dev/null) || top=
  case $top in
    ''|"$TRACEGATE_WORKSPACE"|"$TRACEGATE_WORKSPACE"/*) ;;
    *) refuse "the work tree $top is outside the workspace" ;;
  esac
  # Files a key's value names whose content git puts where it can be read, or folders it writes:
  # a commit template lands in .git/COMMIT_EDITMSG, a signature file in every patch, a skip list's
  # line in fsck's error, patches in the output folder. A relative one may be read from the current
  # folder or the top of the work tree: both must be inside.
  named=$(as_command config --type=path --get-regexp '^(commit\.template|format\.(signaturefile|outputdirectory)|(fetch\.|receive\.)?fsck\.skiplist|diff\.orderfile)$' 2>/dev/null) || named=
  IFS='
'
  for line in $named; do
    IFS=$old_ifs
    key=${line%% *} file=${line#* }
    [ "$file" != "$line" ] && [ -n "$file" ] || continue
    case $file in
      /*) inside "$file" || refuse "$key names $file, outside the workspace" ;;
      *) for dir in "$base" ${top:+"$top"}; do inside "$dir/$file" || refuse "$key names $file, outside the workspace"; done ;;
    esac
  done
  IFS=$old_ifs
}
