# Sourced by the git shim, after lib/secretPaths.sh, at the top level (it appends to the command's
# arguments, which a function could not): the command runs with every secret path withheld.

# Options of the history walkers (log, whatchanged, reflog, stash list) that print no file content:
# with only these, the listing is left as it is (an exclude pathspec would drop commits from it).
# Anything else (-p, -U3, --unified=1, --patch-with-stat, -W, --cc, -c, -m, --word-diff, -G, -S,
# their abbreviations, options not known here) is treated as printing patch text; so are --stat,
# --numstat, --dirstat, --summary and -M, which read the blobs (under bubblewrap a secret's blob is
# masked, and git would stop at it).
lists_only() {
  case $1 in
    --oneline | --pretty | --pretty=* | --format=* | --format | --abbrev-commit | --no-abbrev-commit | --abbrev | --abbrev=* | --no-abbrev) ;;
    --graph | --decorate | --decorate=* | --no-decorate | --source | --all | --branches | --branches=* | --tags | --tags=* | --remotes | --remotes=* | --glob=* | --exclude=*) ;;
    --reflog | -g | --walk-reflogs | -n | -n[0-9]* | --max-count=* | --max-count | --skip=* | --skip | -[0-9] | -[0-9][0-9]*) ;;
    --since=* | --until=* | --after=* | --before=* | --since | --until | --after | --before | --date | --date=*) ;;
    --author=* | --committer=* | --grep=* | --author | --committer | --grep | -i | --regexp-ignore-case | -E | --extended-regexp | -F | --fixed-strings | -P | --perl-regexp | --all-match | --invert-grep) ;;
    --no-merges | --merges | --min-parents=* | --max-parents=* | --first-parent | --reverse | --topo-order | --date-order | --author-date-order) ;;
    --left-right | --cherry-pick | --cherry-mark | --cherry | --left-only | --right-only | --boundary | --ancestry-path | --simplify-by-decoration | --full-history | --dense | --sparse | --show-pulls | --no-walk | --no-walk=* | --do-walk | --parents | --children | --not | --end-of-options) ;;
    --name-only | --name-status | --raw | -s | --no-patch | --quiet) ;;
    --color | --color=* | --no-color | -z | --null | --relative | --relative=* | --no-relative | --no-renames) ;;
    --no-ext-diff | --no-textconv | --log-size | --mailmap | --use-mailmap | --no-mailmap | --no-use-mailmap | --count | --encoding=* | --no-notes | --ignore-submodules | --ignore-submodules=*) ;;
    -*) return 1 ;;
  esac
  return 0
}


# Which commands print what a path holds, and how: "always" (a commit's or the work tree's
# changes, lines, archives), "walk" (history, with patches only if asked), "objects" (cat-file).
kind=
case $sub in
  show | diff | diff-files | diff-index | diff-tree | grep | format-patch | archive) kind=always ;;
  log | whatchanged) kind=walk ;;
  range-diff) kind=range ;;
  cat-file | unpack-file) kind=objects ;;
  for-each-ref | tag | branch) kind=refs ;;
  fast-export | pack-objects | merge-tree) kind=carries ;;
  blame | annotate) kind=blame ;;
  bundle | add | checkout | reset | restore | commit) kind=other ;;
  stash) case $sub_op in show) kind=always ;; list) kind=walk ;; esac ;;
  reflog) case $sub_op in expire | delete | exists) ;; *) kind=walk ;; esac ;;
esac
[ -n "$kind" ] || return 0
secret_pathspecs
[ -n "$find_specs" ] || return 0
tracked_secrets
[ -n "$withheld" ] || return 0
tracked=${withheld%%"$nl"*}
exclude_withheld

# Read what follows the subcommand: options, operands (objects), and any `--`.
listing_only=1 dashdash= operands= follow= lines=
n=0
for a in "$@"; do
  n=$((n + 1))
  [ "$n" -le "$sub_at" ] && continue
  if [ -n "$dashdash" ]; then continue; fi
  case $a in
    --) dashdash=1 ;;
    --full-d | --full-di | --full-dif | --full-diff) refuse "git $sub --full-diff would show the secret path $tracked beside the paths you named" ;;
    --follow) follow=1 ;;
    -L*) lines="$lines$nl${a#-L}" ;;
    --bat | --batc | --batch | --batch=* | --batch-a* | --batch-com* | --batch-c) [ "$kind" = objects ] && refuse "git cat-file $a prints objects by the list, which may hold the secret path $tracked" ;;
    # Interactive staging prints each hunk, a secret's too.
    -p | --pa | --pat | --patc | --patch | --interactive | --inte | --inter | --intera | --interac | --interact | --interacti | --interactiv)
      [ "$kind" = other ] && refuse "git $sub $a would print the secret path $tracked's changes" ;;
    -i) [ "$sub" = add ] && refuse "git add -i would print the secret path $tracked's changes" ;;
  esac
  case $a in
    -*) lists_only "$a" || listing_only= ;;
    *) operands="$operands$nl$a" ;;
  esac
done
[ "$sub" = bundle ] && [ "$sub_op" = create ] && refuse "a bundle would carry the secret path $tracked's objects"
[ "$kind" = other ] && return 0
# Whole objects, as a stream, a pack or a merge's hunks (merge-tree --write-tree prints only ids and names).
if [ "$kind" = carries ]; then
  for a in "$@"; do case $a in --write-tree) [ "$sub" = merge-tree ] && return 0 ;; esac; done
  refuse "git $sub would carry the secret path $tracked's objects"
fi
# %(raw) prints the object a ref points at, which may be a secret's blob (%(raw:size) only its size).
if [ "$kind" = refs ]; then
  for a in "$@"; do
    case $(printf '%s' "$a" | sed 's/%([*]\{0,1\}raw:size)//g') in *'%(raw'* | *'%(*raw'*) refuse "git $sub's %(raw) would print an object that may be the secret path $tracked's content" ;; esac
  done
  return 0
fi
if [ "$kind" = blame ]; then
  IFS=$nl
  for o in $operands; do
    IFS=$old_ifs
    names_secret "$o" && refuse "git $sub $o would print the secret path's content"
  done
  IFS=$old_ifs
  return 0
fi

# A named object that is, or (for diff, grep, archive) holds, a secret's content is refused.
if [ -n "$operands" ]; then
  # A blob only ever at public templates is no secret.
  blobs=$(secret_blobs | { if [ -n "$TRACEGATE_PUBLIC_TEMPLATES" ]; then grep -vxF -e "$TRACEGATE_PUBLIC_TEMPLATES"; else cat; fi; } | cut -f1 | sort -u)
  # Each operand, each end of a range, and each peeled (a tag of a blob shows the blob).
  wanted=$(printf '%s\n' "$operands" | sed -n 's/^\^//; s/\.\.\.*/\n/g; /./p' | sed -n '/./{p;s/$/^{}/p;}' | as_command cat-file --batch-check='%(objecttype) %(objectname)' 2>/dev/null)
  IFS=$nl
  not_blob=
  for line in $wanted; do
    IFS=$old_ifs
    type=${line%% *} id=${line#* }
    # A blob judged a public template (`git show HEAD:.env.example`) is shown whole, with no notice.
    # (`REV:PATH^{}`, the peeled probe of a path, is missing; any other unreadable object counts.)
    case $type:$line in
      blob:*) printf '%s\n' "$TRACEGATE_PUBLIC_TEMPLATES" | cut -f1 | grep -qx "$id" || not_blob=1 ;;
      *'^{} missing') ;;
      *) not_blob=1 ;;
    esac
    case $type in
      blob) printf '%s\n' "$blobs" | grep -qx "$id" && refuse "the object $id is the content of the secret path $tracked (or another secret path)" ;;
      tree)
        case $kind in
          objects) ;;
          *) as_command ls-tree -r "$id" 2>/dev/null | awk '{ print $3 }' | grep -qxF "$blobs" && refuse "the tree $id holds the content of a secret path" ;;
        esac
        ;;
    esac
  done
  IFS=$old_ifs
  # `git show REV:PATH …` naming public template blobs alone prints those blobs: nothing is withheld.
  [ "$sub" = show ] && [ -n "$wanted" ] && [ -z "$not_blob" ] && return 0
fi
[ "$kind" = objects ] && return 0
if [ "$kind" = walk ] && [ -n "$listing_only" ]; then
  # The listing stays whole, without rename detection: scoring a rename of a secret path reads its
  # blob (masked under bubblewrap, where git would stop at it) and prints how like the secret a file is.
  count=$#
  n=0
  while [ "$n" -lt "$count" ]; do
    a=$1
    shift
    n=$((n + 1))
    set -- "$@" "$a"
    [ "$n" -eq "$sub_at" ] && set -- "$@" --no-renames
  done
  return 0
fi

# A line range or --follow takes one path and no other pathspec: it runs if that path never had a secret name.
if [ -n "$lines" ] || [ -n "$follow" ]; then
  IFS=$nl
  for range in $lines; do
    IFS=$old_ifs
    history_names_secret "${range##*:}" && refuse "git $sub -L$range follows the secret path's content"
  done
  IFS=$old_ifs
  if [ -n "$follow" ]; then
    IFS=$nl
    for o in $operands; do
      IFS=$old_ifs
      [ -e "$o" ] && history_names_secret "$o" && refuse "git $sub --follow $o follows a file that was a secret path"
    done
    IFS=$old_ifs
  fi
  return 0
fi
case ${GIT_LITERAL_PATHSPECS:-0} in 0 | false | no | '') ;; *) refuse 'literal pathspecs would let the secret paths through (unset GIT_LITERAL_PATHSPECS)' ;; esac
[ -n "$literal_pathspecs" ] && refuse 'git --literal-pathspecs would let the secret paths through'
# `diff --no-index` compares two named files, not the repository's (the policy checks those paths).
for a in "$@"; do case $a in --no-i | --no-in | --no-ind | --no-inde | --no-index) return 0 ;; --) break ;; esac; done

# The excludes go last. Without `--`, twice: a trailing option that takes a value (`--grep`)
# would take the first copy as its value, and the second is still a pathspec. range-diff takes
# only ranges before `--`, so it gets one.
IFS=$nl
if [ -n "$dashdash" ]; then
  # shellcheck disable=SC2086
  set -- "$@" $exclude_specs
elif [ "$kind" = range ]; then
  # shellcheck disable=SC2086
  set -- "$@" -- $exclude_specs
else
  # shellcheck disable=SC2086
  set -- "$@" $exclude_specs $exclude_specs
fi
IFS=$old_ifs
echo "git: withheld from this output: $tracked and any other secret path the repository tracks or once tracked" >&2
