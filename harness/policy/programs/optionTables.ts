/**
 * The options of the programs the policy reads, as each program's own getopt_long knows them. Read on
 * Debian 12 (GNU coreutils 9.1, grep 3.8, sed 4.9, findutils 4.9.0, diffutils 3.8, util-linux
 * 2.38.1, file 5.44) from each program's `--help`, then checked against the program itself: every
 * option's argument kind from its "requires an argument" / "doesn't allow an argument" replies, and
 * every prefix shared by several options from its "is ambiguous" reply (a prefix it took anyway
 * joins its options as one, written `a|b`).
 *
 * `long`: `name` takes no value, `name=` takes one (`--name=V` or `--name V`), `name=?` takes one only
 * after `=`. `short`: the short options whose value is the rest of the word or the next word.
 * `stopsAtOperand`: the program reads options only up to its first operand (its command, for a wrapper).
 */
export interface OptionTable {
  short: string;
  long: string;
  stopsAtOperand?: true;
}

export const OPTION_TABLES: Record<string, OptionTable> = {
  sort: { short: "CSTkot", long: "batch-size= buffer-size= check=? compress-program= debug dictionary-order field-separator= files0-from= general-numeric-sort help human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting key= merge month-sort numeric-sort output= parallel= random-sort random-source= reverse sort= stable temporary-directory= unique version version-sort zero-terminated" },
  grep: { short: "ABCDdefm", long: "after-context= basic-regexp before-context= binary binary-files= byte-offset color|colour=? context= count dereference-recursive devices= directories= exclude-dir= exclude-from= exclude= extended-regexp file= files-with-matches files-without-match fixed-regexp|fixed-strings group-separator= help ignore-case include= initial-tab invert-match label= line-buffered line-number line-regexp max-count= no-filename no-group-separator no-ignore-case no-messages null null-data only-matching perl-regexp quiet recursive regexp= silent text unix-byte-offsets version with-filename word-regexp" },
  sed: { short: "efl", long: "binary debug expression= file= follow-symlinks help in-place=? line-length= null-data posix quiet regexp-extended sandbox separate silent unbuffered version zero-terminated" },
  xargs: { short: "EILPadns", long: "arg-file= delimiter= eof=? exit help interactive max-args= max-chars= max-lines=? max-procs= no-run-if-empty null open-tty process-slot-var= replace=? show-limits verbose version", stopsAtOperand: true },
  diff: { short: "DFISWXx", long: "binary brief changed-group-format= color=? context=? ed exclude-from= exclude= expand-tabs forward-ed from-file= help horizon-lines= ifdef= ignore-all-space ignore-blank-lines ignore-case ignore-file-name-case ignore-matching-lines= ignore-space-change ignore-tab-expansion ignore-trailing-space inhibit-hunk-merge initial-tab label= left-column line-format= minimal new-file new-group-format= new-line-format= no-dereference no-ignore-file-name-case normal old-group-format= old-line-format= paginate palette= rcs recursive report-identical-files sdiff-merge-assist show-c-function show-function-line= side-by-side speed-large-files starting-file= strip-trailing-cr suppress-blank-empty suppress-common-lines tabsize= text to-file= unchanged-group-format= unchanged-line-format= unidirectional-new-file unified=? version width=" },
  cmp: { short: "in", long: "bytes= help ignore-initial= print-bytes print-chars quiet silent verbose version" },
  env: { short: "CSu", long: "block-signal=? chdir= debug default-signal=? help ignore-environment ignore-signal=? list-signal-handling null split-string= unset= version", stopsAtOperand: true },
  cp: { short: "St", long: "archive attributes-only backup=? context=? copy-contents dereference force help interactive link no-clobber no-dereference no-preserve= no-target-directory one-file-system parents preserve=? recursive reflink=? remove-destination sparse= strip-trailing-slashes suffix= symbolic-link target-directory= update verbose version" },
  mv: { short: "St", long: "backup=? context force help interactive no-clobber no-target-directory strip-trailing-slashes suffix= target-directory= update verbose version" },
  ls: { short: "ITpw", long: "all almost-all author block-size= classify=? color=? context dereference dereference-command-line dereference-command-line-symlink-to-dir directory dired escape file-type format= full-time group-directories-first help hide-control-chars hide= human-readable hyperlink=? ignore-backups ignore= indicator-style= inode kibibytes literal no-group numeric-uid-gid quote-name quoting-style= recursive reverse show-control-chars si size sort= tabsize= time-style= time= version width= zero" },
  du: { short: "BXdt", long: "all apparent-size block-size= bytes count-links dereference dereference-args exclude-from= exclude= files0-from= help human-readable inodes max-depth= no-dereference null one-file-system separate-dirs si summarize threshold= time-style= time=? total version" },
  stat: { short: "", long: "cached= dereference file-system format= help printf= terse version" },
  file: { short: "FPefm", long: "apple brief checking-printout compile debug dereference exclude-quiet= exclude= extension files-from= help keep-going list magic-file= mime mime-encoding mime-type no-buffer no-dereference no-pad no-sandbox parameter= preserve-date print0 raw separator= special-files uncompress uncompress-noreport version" },
  date: { short: "dfrs", long: "date= debug file= help iso-8601=? reference= resolution rfc-2822 rfc-3339= rfc-822 rfc-email set= uct|universal|utc version" },
  rm: { short: "", long: "dir force help interactive=? no-preserve-root one-file-system preserve-root=? recursive verbose version" },
  rmdir: { short: "", long: "help ignore-fail-on-non-empty parents verbose version" },
  shred: { short: "ns", long: "exact force help iterations= random-source= remove=? size= verbose version zero" },
  unlink: { short: "", long: "help version" },
  tee: { short: "", long: "append help ignore-interrupts output-error=? version" },
  head: { short: "cn", long: "bytes= help lines= quiet silent verbose version zero-terminated" },
  tail: { short: "cns", long: "bytes= follow=? help lines= max-unchanged-stats= pid= quiet retry silent sleep-interval= verbose version zero-terminated" },
  wc: { short: "", long: "bytes chars debug files0-from= help lines max-line-length version words" },
  cut: { short: "bcdf", long: "bytes= characters= complement delimiter= fields= help only-delimited output-delimiter= version zero-terminated" },
  uniq: { short: "fsw", long: "all-repeated=? check-chars= count group=? help ignore-case repeated skip-chars= skip-fields= unique version zero-terminated" },
  touch: { short: "drt", long: "date= help no-create no-dereference reference= time= version" },
  mkdir: { short: "m", long: "context=? help mode= parents verbose version" },
  ln: { short: "St", long: "backup=? directory force help interactive logical no-dereference no-target-directory physical relative suffix= symbolic target-directory= verbose version" },
  chmod: { short: "", long: "changes help no-preserve-root preserve-root quiet recursive reference= silent verbose version" },
  chown: { short: "", long: "changes dereference from= help no-dereference no-preserve-root preserve-root quiet recursive reference= silent verbose version" },
  chgrp: { short: "", long: "changes dereference help no-dereference no-preserve-root preserve-root quiet recursive reference= silent verbose version" },
  timeout: { short: "ks", long: "foreground help kill-after= preserve-status signal= verbose version", stopsAtOperand: true },
  nice: { short: "n", long: "adjustment= help version", stopsAtOperand: true },
  stdbuf: { short: "eio", long: "error= help input= output= version", stopsAtOperand: true },
  ionice: { short: "cnpPu", long: "class= classdata= help ignore pgid= pid= uid= version", stopsAtOperand: true },
  md5sum: { short: "", long: "binary check help ignore-missing quiet status strict tag text version warn zero" },
  sha1sum: { short: "", long: "binary check help ignore-missing quiet status strict tag text version warn zero" },
  sha256sum: { short: "", long: "binary check help ignore-missing quiet status strict tag text version warn zero" },
  cat: { short: "", long: "help number number-nonblank show-all show-ends show-nonprinting show-tabs squeeze-blank version" },
  nl: { short: "bdfhilnsvw", long: "body-numbering= footer-numbering= header-numbering= help join-blank-lines= line-increment= no-renumber number-format= number-separator= number-width= section-delimiter= starting-line-number= version" },
  od: { short: "ANSjt", long: "address-radix= endian= format= help output-duplicates read-bytes= skip-bytes= strings=? traditional version width=?" },
  readlink: { short: "", long: "canonicalize canonicalize-existing canonicalize-missing help no-newline quiet silent verbose version zero" },
  realpath: { short: "", long: "canonicalize-existing canonicalize-missing help logical no-symlinks physical quiet relative-base= relative-to= strip version zero" },
  basename: { short: "s", long: "help multiple suffix= version zero" },
  dirname: { short: "", long: "help version zero" },
  paste: { short: "d", long: "delimiters= help serial version zero-terminated" },
  join: { short: "12aejotv", long: "check-order header help ignore-case nocheck-order version zero-terminated" },
  comm: { short: "", long: "check-order help nocheck-order output-delimiter= total version zero-terminated" },
  tr: { short: "", long: "complement delete help squeeze-repeats truncate-set1 version" },
  fold: { short: "w", long: "bytes help spaces version width=" },
  expand: { short: "t", long: "help initial tabs= version" },
  seq: { short: "fs", long: "equal-width format= help separator= version" },
  sleep: { short: "", long: "help version" },
  uname: { short: "", long: "all hardware-platform help kernel-name kernel-release kernel-version machine nodename operating-system processor release sysname version" },
  strings: { short: "Tenst", long: "all bytes= data encoding= help include-all-whitespace output-separator= print-file-name radix= target= unicode= version" },
  hexdump: { short: "efns", long: "canonical color=? format-file= format= help length= no-squeezing one-byte-char one-byte-octal skip= two-bytes-decimal two-bytes-hex two-bytes-octal version" },
};
