/**
 * The launcher's copy of `src/shared/socket_site.ts`: after the socket path is found and fits,
 * it is refused (exit 2, the same one line) when its grant could reach more than a socket —
 * something other than a socket at the name, or a folder someone else could put something in.
 * `[ -h ]` looks at a link itself; `[ -e ]`, `[ -d ]` and `ls -L` follow links, as `lstat` and
 * `stat` do there. `ls -ldn` gives the folder's mode and owner's id in POSIX shell, and
 * `[ -O ]` (which follows links too) whether that owner is you, without running `id`. The
 * launcher's test runs both against every kind of path and compares their verdicts.
 */
export const SOCKET_SITE_CHECK = `
refuse() { fail "$origin $socket $1"; }
# Who besides you and root could change entries in folder $1, into $who; with a second
# argument its group counts too.
writers() {
  strict=\${2:-} place=$1
  listing=$(ls -ldnL -- "$1" 2>/dev/null) || listing=
  set -- $listing
  who=
  if [ "\${3:-0}" != 0 ] && ! [ -O "$place" ]; then who="belongs to user $3"; return; fi
  case \${1:-} in ????????w*) who='other users can write to'; return ;; esac
  [ -z "$strict" ] || case \${1:-} in ?????w*) who='its group can write to' ;; esac
}

# What is at the name itself: nothing yet, or a socket.
if [ -h "$socket" ]; then
  refuse "is a symbolic link, not a socket: Deno grants the link's name and the system follows it to whatever it points at, now or later. Give the path of the socket itself."
elif [ -d "$socket" ]; then
  directory "$origin" "$socket"
elif [ -S "$socket" ] || [ ! -e "$socket" ]; then
  :
else
  if [ -f "$socket" ]; then kind='a regular file'
  elif [ -p "$socket" ]; then kind='a named pipe (FIFO)'
  elif [ -c "$socket" ]; then kind='a character device'
  elif [ -b "$socket" ]; then kind='a block device'
  else kind='neither a socket nor a file'
  fi
  refuse "is $kind, not a socket: the permission grant would let the bridge read and write it. Give the path of PortReeve's socket."
fi

# Its folder: only you (or root) may change what is in it.
folder=\${socket%/*}
[ -n "$folder" ] || folder=/
if [ -h "$folder" ]; then
  refuse "lies in $folder, a symbolic link: whoever changes the link changes what the grant reaches, and PortReeve will not listen in a linked folder. Give the socket's path in the real folder."
elif [ -e "$folder" ]; then
  [ -d "$folder" ] ||
    refuse "lies under $folder, which is not a folder, so no socket can be there. Give the path of PortReeve's socket."
  writers "$folder" strict
  [ -z "$who" ] ||
    refuse "lies in $folder, which $who: they could put their own socket or a link at that name, and PortReeve will not listen there. Use a folder only you can write to."
else
  above=$folder
  while :; do
    above=\${above%/*}
    [ -n "$above" ] || above=/
    [ ! -e "$above" ] || break
  done
  [ -d "$above" ] ||
    refuse "lies under $above, which is not a folder, so no socket can be there. Give the path of PortReeve's socket."
  writers "$above"
  [ -z "$who" ] ||
    refuse "lies under $above, which $who: they could make the socket's folder first and put their own socket or a link in it. Use a folder only you can write to."
fi
`;
