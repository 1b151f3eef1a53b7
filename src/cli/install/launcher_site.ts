/**
 * The launcher's copy of `src/shared/socket_site.ts`: after the socket path is found and fits,
 * it is refused (exit 2, the same one line) when its grant could reach more than a socket of
 * yours — something else at the name, another user's socket, or a folder on the way that
 * someone else could change. `[ -h ]` looks at a link itself; `[ -e ]`, `[ -d ]`, `[ -O ]` and
 * `ls -L` follow links, as `lstat` and `stat` do there. The walk from `/` follows each link
 * with `readlink` as the system does; `ls -ldn` gives a folder's or link's mode, owner's and
 * group's ids in POSIX shell, and `[ -O ]` whether that owner is you, so `id` runs only when a
 * link or a folder its group may write is met, and `getent` (private_group.ts) for the latter.
 * The launcher's tests run both against every kind of path and folder and compare their
 * verdicts.
 */
import { MAX_LINKS } from "../../shared/socket_site.ts";

export const SOCKET_SITE_CHECK = `
refuse() { fail "$origin $socket $1"; }
# The user id that owns $1 itself (a link is not followed), into $owner.
owner_of() {
  listing=$(ls -ldn -- "$1" 2>/dev/null) || listing=
  set -- $listing
  owner=\${3:-}
}
# The user (passwd) or group database's lines, as getent prints them (for a key, at least the
# entries with that id); where there is no getent (macOS), the whole file in /etc.
accounts() {
  if command -v getent >/dev/null 2>&1; then
    getent "$@" 2>/dev/null
  else
    cat "/etc/$1" 2>/dev/null
  fi
}
# The entries of group $2 among the group database's lines $1, as name:members lines, into
# $own_groups (empty when there are none).
groups_with_id() {
  own_groups=
  while IFS=: read -r entry_name entry_x entry_id entry_rest; do
    [ "$entry_id" != "$2" ] || own_groups=$own_groups$entry_name:$entry_rest$nl
  done <<EOF
$1
EOF
  own_groups=\${own_groups%"$nl"}
}
# Your entry among the user database's lines $1, into $my_name and $my_group; fails without.
my_entry() {
  while IFS=: read -r entry_name entry_x entry_id entry_rest; do
    [ "$entry_id" = "$me" ] || continue
    my_name=$entry_name my_group=\${entry_rest%%:*}
    return 0
  done <<EOF
$1
EOF
  return 1
}
# Why group $1 is not yours alone, into $shared (empty when it is your private group: named as
# you, your primary group, no member but you, no one else's primary group), and its name for a
# refusal, into $label; asked once for the last group. Both databases are listed; an entry
# missing from a list (a directory that lists no one) is asked for by its id.
private_group() {
  [ "\${group_asked-}" != "=$1" ] || return 0
  group_asked="=$1" shared= label="group $1" groups_listed=1 users_listed=1
  me=\${me:-$(id -u)}
  all_groups=$(accounts group) || groups_listed= all_groups=
  groups_with_id "$all_groups" "$1"
  [ -n "$own_groups" ] || groups_with_id "$(accounts group "$1")" "$1"
  [ -n "$own_groups" ] || { shared='the group database has no entry for it'; return; }
  group_name=\${own_groups%%:*}
  label="group $1 ($group_name)"
  all_users=$(accounts passwd) || users_listed= all_users=
  my_entry "$all_users" || my_entry "$(accounts passwd "$me")" ||
    { shared="the user database has no entry for you (user $me)"; return; }
  [ "$group_name" = "$my_name" ] || { shared="it is not named $my_name"; return; }
  [ "$my_group" = "$1" ] || { shared='it is not your primary group'; return; }
  [ -n "$groups_listed" ] || { shared='the group database cannot be listed'; return; }
  while IFS=: read -r entry_name entry_rest; do
    [ "$entry_name" = "$my_name" ] || { shared="group $entry_name has its id too"; return; }
    IFS=,
    for member in $entry_rest; do
      [ -z "$member" ] || [ "$member" = "$my_name" ] ||
        { unset IFS; shared="it lists $member as a member"; return; }
    done
    unset IFS
  done <<EOF
$own_groups
EOF
  [ -n "$users_listed" ] || { shared='the user database cannot be listed'; return; }
  while IFS=: read -r entry_name entry_x entry_id entry_group entry_rest; do
    [ "$entry_group" != "$1" ] || [ "$entry_id" = "$me" ] ||
      { shared="it is also the primary group of $entry_name"; return; }
  done <<EOF
$all_users
EOF
}
# Who besides you and root could change entries in folder $1, into $who, and the fix, into
# $fix; with a second argument (the last folder of the walk) a sticky bit does not help. A
# third is its line of ls -ldn, when it was listed already.
judge() {
  place=$1 strict=\${2:-}
  if [ $# -ge 3 ]; then
    listing=$3
  else
    listing=$(ls -ldn -- "$1" 2>/dev/null) || listing=
  fi
  set -- $listing
  who= fix=
  if [ "\${3:-0}" != 0 ] && ! [ -O "$place" ]; then
    who="belongs to user $3"
    fix="Use a socket path whose folders all belong to you or root (or have root chown $place)."
    return
  fi
  # A folder of yours tells your user id without asking id.
  [ -n "\${me:-}" ] || [ "\${3:-0}" = 0 ] || me=$3
  [ -n "$strict" ] || case \${1:-} in ?????????[tT]*) return ;; esac
  case \${1:-} in
    ????????w*) who='other users can write to' ;;
    ?????w*)
      private_group "\${4:-}"
      [ -n "$shared" ] || return
      who="$label can write to, a group not yours alone ($shared)" ;;
    *) return ;;
  esac
  if [ -n "$strict" ]; then
    fix="Use a folder only you can write to (for a folder of yours: chmod go-w $place)."
  else
    fix="Fix: chmod go-w $place, or chmod +t $place (as /tmp has) if others must write there."
  fi
}
# A folder the walk passes through (and its ls line, if listed).
passing() {
  judge "$1" '' \${2+"$2"}
  [ -z "$who" ] ||
    refuse "lies under $1, which $who: they could move the folders below it aside and put their own socket at this path. $fix"
}
# The last folder of the walk: the socket's folder (in), or the nearest one above it (under).
last_folder() {
  judge "$2" strict \${3+"$3"}
  [ -z "$who" ] || if [ "$1" = in ]; then
    refuse "lies in $2, which $who: they could put their own socket or a link at that name, and PortReeve will not listen there. $fix"
  else
    refuse "lies under $2, which $who: they could make the socket's folder first and put their own socket or a link in it. $fix"
  fi
}

# What is at the name itself: nothing yet, or a socket of yours.
if [ -h "$socket" ]; then
  refuse "is a symbolic link, not a socket: Deno grants the link's name and the system follows it to whatever it points at, now or later. Give the path of the socket itself."
elif [ -d "$socket" ]; then
  directory "$origin" "$socket"
elif [ -S "$socket" ]; then
  if ! [ -O "$socket" ]; then
    owner_of "$socket"
    refuse "is a socket of user $owner, not yours: PortReeve listens on a socket of the user it runs as, so someone else's program listens there. Give the path of your own daemon's socket."
  fi
elif [ -e "$socket" ]; then
  if [ -f "$socket" ]; then kind='a regular file'
  elif [ -p "$socket" ]; then kind='a named pipe (FIFO)'
  elif [ -c "$socket" ]; then kind='a character device'
  elif [ -b "$socket" ]; then kind='a block device'
  else kind='neither a socket nor a file'
  fi
  refuse "is $kind, not a socket: the permission grant would let the bridge read and write it. Give the path of PortReeve's socket."
fi

# Its folder is a real one, and every folder on the way to it (links followed) only yours or
# root's to change.
folder=\${socket%/*}
[ -n "$folder" ] || folder=/
[ ! -h "$folder" ] ||
  refuse "lies in $folder, a symbolic link: whoever changes the link changes what the grant reaches, and PortReeve will not listen in a linked folder. Give the socket's path in the real folder."
# The usual case, no link on the way: one ls lists every folder from / down to the last one
# there, in order (C locale: a path sorts before the paths below it), each judged as the walk
# below would judge it. What it cannot vouch for line by line (a link, a file, a name ls
# would not print as it is) is left to that walk, which follows links one at a time.
listed() {
  IFS=$nl
  set -- $1
  unset IFS
  LC_ALL=C ls -ldnq -- "$@" 2>/dev/null
  return 0
}
walked_at_once() {
  case $folder in *"$nl"*) return 1 ;; esac
  prefixes=/ prefix= rest=\${folder#/}
  while [ -n "$rest" ]; do
    case $rest in */*) name=\${rest%%/*} rest=\${rest#*/} ;; *) name=$rest rest= ;; esac
    prefix=$prefix/$name prefixes=$prefixes$nl$prefix
  done
  lines=$(listed "$prefixes"; echo .)
  lines=\${lines%.}
  above= above_line=
  while [ -n "$lines" ]; do
    line=\${lines%%"$nl"*} lines=\${lines#*"$nl"}
    dir=\${prefixes%%"$nl"*}
    case $prefixes in *"$nl"*) prefixes=\${prefixes#*"$nl"} ;; *) prefixes= ;; esac
    case $line in d*" $dir") ;; *) return 1 ;; esac
    [ -z "$above" ] || passing "$above" "$above_line"
    above=$dir above_line=$line
  done
  [ -n "$above" ] || return 1
  if [ -z "$prefixes" ]; then
    last_folder in "$above" "$above_line"
  else
    last_folder under "$above" "$above_line"
  fi
}
walked_at_once && here= || here=/
todo=$folder links=0
while [ -n "$here" ]; do
  case $todo in
    '') last_folder in "$here"; break ;;
    */*) name=\${todo%%/*} todo=\${todo#*/} ;;
    *) name=$todo todo= ;;
  esac
  case $name in
    '' | .) continue ;;
    ..) here=\${here%/*}; [ -n "$here" ] || here=/; continue ;;
  esac
  next=\${here%/}/$name
  if [ -h "$next" ]; then
    passing "$here"
    owner_of "$next"
    if [ "\${owner:-0}" != 0 ]; then
      me=\${me:-$(id -u)}
      [ "$owner" = "$me" ] ||
        refuse "lies under $next, a symbolic link of user $owner: they could make it lead elsewhere. Give the path without the link (pwd -P shows it), or have root own it."
    fi
    links=$((links + 1))
    [ "$links" -le ${MAX_LINKS} ] ||
      refuse "lies under $next, past more than ${MAX_LINKS} symbolic links (a loop?). Give the socket's real path."
    target=$(readlink -- "$next" && echo .) || { last_folder under "$here"; break; }
    target=\${target%??}
    case $target in /*) here=/ ;; esac
    todo=$target/$todo
    continue
  fi
  [ -e "$next" ] || { last_folder under "$here"; break; }
  [ -d "$next" ] ||
    refuse "lies under $next, which is not a folder, so no socket can be there. Give the path of PortReeve's socket."
  passing "$here"
  here=$next
done
`;
