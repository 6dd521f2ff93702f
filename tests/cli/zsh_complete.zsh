#!/usr/bin/env zsh
# zsh_complete.zsh SCRIPT LINE: the candidates zsh's completion offers for
# the end of LINE, one a line, once the completion SCRIPT is loaded. Runs an
# interactive zsh on a pseudo-terminal (zpty), types LINE and a TAB, and
# prints what the completion functions hand to compadd.
zmodload zsh/zpty || exit 2
script=$1
line=$2
zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''
autoload -Uz compinit; compinit -u -d ${(q)TMPDIR:-/tmp}/zcompdump.$$
source ${(q)script}
compadd() { local -a __hits; builtin compadd -A __hits \"\$@\"; print -rl -- \"<HIT>\"\${^__hits}; builtin compadd \"\$@\" }
__done() { print -r -- '<END>'; exit }
comppostfuncs=(__done)
echo '<READY>'"
zpty -r z out '*<READY>*'
zpty -w z "$line"$'\t'
all=
while zpty -r -t z out 2>/dev/null || { sleep 0.05; zpty -r z out; }; do
    all+=$out
    [[ $out == *'<END>'* ]] && break
done
zpty -d z
rm -f ${TMPDIR:-/tmp}/zcompdump.$$
print -r -- "$all" | tr -d '\r' | grep -o '<HIT>[^<]*' | sed 's/<HIT>//; s/[[:space:]]*$//' | sort -u
