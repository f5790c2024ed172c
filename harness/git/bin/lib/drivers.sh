# Sourced by the git shim. A repository names its own drivers (filter.<name>.clean,
# diff.<name>.textconv, merge.<name>.driver ...): every key it configures that names a program is
# read from the config listing, includes followed, and overridden before git starts. The override
# goes into GIT_CONFIG_PARAMETERS in the quoted form ('key'='value'), which git takes whole: a name
# holding `=` cannot split it (`-c filter.a=b.clean=` sets filter.a), and it is the latest scope
# before the command line's own -c, which the policy refuses.

# Sets `value` to what switches one program-naming key off; fails for a key that names no program.
# Section and variable names come lower-cased from the listing; the subsection is the repository's.
neutral_value() {
  value=
  case $1 in
    filter.*.clean | filter.*.smudge | filter.*.process | diff.*.command) ;;
    filter.*.required | diff.*.cachetextconv) value=false ;;
    # An identity textconv: git has no value meaning "none", and an empty one fails to run.
    diff.*.textconv) value=cat ;;
    # The built-in three-way text merge, in place of the repository's program.
    merge.*.driver) value='git merge-file --marker-size=%L %A %O %B' ;;
    tar.*.command) value='gzip -cn' ;;
    difftool.*.cmd | difftool.*.path | mergetool.*.cmd | mergetool.*.path | man.*.cmd | man.*.path | browser.*.cmd | browser.*.path | guitool.*.cmd) ;;
    credential.*.helper | trailer.*.command | trailer.*.cmd | hook.*.command | remote.*.proxy | remote.*.vcs) ;;
    sendemail.*.smtpserver | sendemail.*.sendmailcmd | sendemail.*.tocmd | sendemail.*.cccmd | sendemail.*.headercmd) ;;
    remote.*.uploadpack) value=git-upload-pack ;;
    remote.*.receivepack) value=git-receive-pack ;;
    gpg.*.program) value=false ;;
    submodule.*.update) value=checkout ;;
    # An empty pager is "no pager"; an empty alias is an error, never a program.
    pager.* | alias.*) ;;
    *) return 1 ;;
  esac
}

# $1 quoted for GIT_CONFIG_PARAMETERS (git's sq_quote: ' becomes '\'').
sq_quote() {
  case $1 in
    *"'"*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf "'%s'" "$1" ;;
  esac
}

override_drivers() {
  params=
  IFS='
'
  for key in $names; do
    neutral_value "$key" || continue
    params="$params${params:+ }$(sq_quote "$key")=$(sq_quote "$value")"
  done
  IFS=$old_ifs
  if [ -n "$params" ]; then
    GIT_CONFIG_PARAMETERS="${GIT_CONFIG_PARAMETERS:+$GIT_CONFIG_PARAMETERS }$params"
    export GIT_CONFIG_PARAMETERS
  fi
}
