#!/usr/bin/env bash
# A throwaway single-node Slurm cluster on localhost, for tests.
#
#   tests/slurm/start_local_slurm.sh start DIR [TIMEOUT]
#   tests/slurm/start_local_slurm.sh stop DIR
#
# `start` writes a munge key, a minimal slurm.conf and every piece of state
# (spool, state save, pid files, logs, sockets) under DIR, then starts munged,
# slurmctld and slurmd in the background and waits (at most TIMEOUT seconds,
# default 30) until `sinfo` reports the node idle.  The cluster has one node,
# this machine (its short hostname, at 127.0.0.1) with the CPUs `slurmd -C`
# detects, one partition `debug`, no accounting and no cgroups; the daemons run
# as the calling user (root in the usual case) on two free TCP ports picked at
# random, so several test clusters and a real Slurm installation do not clash.
# On success it prints `SLURM_CONF=DIR/slurm.conf` as the last line of
# standard output: export it and sbatch, squeue, sinfo and scancel talk to this
# cluster.  A watchdog stops the cluster after GPUSH_SLURM_LIFETIME seconds
# (default 900) in case the caller dies before calling `stop`.
#
# `stop` cancels the cluster's jobs, stops the daemons (TERM, then KILL after
# 10 s), the watchdog, and removes DIR.  It is safe to call on a half-started
# or already stopped cluster.
#
# Exit status of `start`: 0 running; 2 usage; 3 the Debian packages are not
# installed (apt-get install slurm-wlm munge); 4 Slurm did not come up (the
# daemons' logs are printed on stderr and everything started is stopped).
# Callers treat 3 and 4 as "skip".  The daemons never inherit LD_PRELOAD (an
# ASan runtime preloaded into a test runner must not reach them).
set -u

SCRIPT=$(readlink -f "$0")
DAEMONS="slurmd slurmctld munged"

usage() {
  echo "usage: $0 start DIR [TIMEOUT] | $0 stop DIR" >&2
  exit 2
}

# Fails (exit 3) naming every missing program.
require_programs() {
  local missing=() p
  for p in munged slurmctld slurmd sinfo sbatch squeue scancel scontrol; do
    command -v "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "start_local_slurm: not installed: ${missing[*]} (Debian: apt-get install -y slurm-wlm munge)" >&2
    exit 3
  fi
}

# True when some socket listens on TCP port $1 (IPv4 or IPv6).
port_in_use() {
  local hex
  hex=$(printf '%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# Prints a free TCP port in 20000..59999 other than $1.
free_port() {
  local port _
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if [ "$port" != "${1:-}" ] && ! port_in_use "$port"; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# The NodeName=... line for this machine: what `slurmd -C` detects (name and
# CPU topology, without memory, which CR_CPU does not schedule), else the
# short hostname with nproc CPUs.
node_line() {
  local line
  line=$(slurmd -C 2>/dev/null | grep '^NodeName=' | sed 's/ RealMemory=[0-9]*//')
  if [ -z "$line" ]; then
    line="NodeName=$(hostname -s) CPUs=$(nproc)"
  fi
  echo "$line NodeAddr=127.0.0.1 State=UNKNOWN"
}

write_config() {
  local dir=$1 ctld_port=$2 slurmd_port=$3 user node name
  user=$(id -un)
  node=$(node_line)
  name=${node#NodeName=}
  name=${name%% *}
  cat > "$dir/slurm.conf" <<EOF
# Written by tests/slurm/start_local_slurm.sh: a throwaway one-node cluster.
ClusterName=gpushtest
SlurmctldHost=$name(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.socket
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.daemon.pid
SlurmdPidFile=$dir/run/slurmd.daemon.pid
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
$node
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

# Writes a 1024-byte munge key readable only by the caller.
write_munge_key() {
  local key=$1
  if command -v mungekey >/dev/null 2>&1; then
    mungekey --create --keyfile="$key" --bits=8192 >/dev/null 2>&1 && return 0
  fi
  (umask 077 && head -c 1024 /dev/urandom > "$key")
}

# Starts daemon $2 (command line $3...) for the cluster in $1, in its own
# session, without LD_PRELOAD, output to DIR/log/$2.out, pid to DIR/run/$2.pid
# (the daemons also write DIR/run/$2.daemon.pid themselves).
launch() {
  local dir=$1 name=$2
  shift 2
  setsid env -u LD_PRELOAD "$@" > "$dir/log/$name.out" 2>&1 < /dev/null &
  echo $! > "$dir/run/$name.pid"
}

# Prints the state of the node as sinfo sees it (idle, down, unk, ...).
node_state() {
  SLURM_CONF="$1/slurm.conf" timeout 5 sinfo -h -N -o '%t' 2>/dev/null | head -n 1
}

dump_logs() {
  local dir=$1 f
  for f in "$dir"/log/*; do
    [ -f "$f" ] || continue
    echo "---- $f (last 20 lines)" >&2
    tail -n 20 "$f" >&2
  done
}

start() {
  local dir=$1 timeout=${2:-30} ctld_port slurmd_port waited state
  require_programs
  mkdir -p "$dir" || exit 4
  dir=$(readlink -f "$dir")
  # munged wants its socket's directory searchable by everyone and its key's
  # directory private.
  chmod 755 "$dir"
  mkdir -p "$dir/run" "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 755 "$dir/run"
  chmod 700 "$dir/munge"
  if ! ctld_port=$(free_port) || ! slurmd_port=$(free_port "$ctld_port"); then
    echo "start_local_slurm: no free TCP port found" >&2
    exit 4
  fi
  write_config "$dir" "$ctld_port" "$slurmd_port"
  write_munge_key "$dir/munge/munge.key"

  launch "$dir" munged munged --foreground --force --socket="$dir/run/munge.socket" \
    --key-file="$dir/munge/munge.key" --seed-file="$dir/munge/munged.seed" \
    --pid-file="$dir/run/munged.daemon.pid"
  for waited in $(seq 1 50); do
    [ -S "$dir/run/munge.socket" ] && break
    sleep 0.1
  done
  launch "$dir" slurmctld slurmctld -D -f "$dir/slurm.conf"
  launch "$dir" slurmd slurmd -D -f "$dir/slurm.conf"
  # shellcheck disable=SC2016 # the watchdog's own positional parameters
  setsid bash -c 'sleep "$1"; exec "$2" stop "$3"' watchdog "${GPUSH_SLURM_LIFETIME:-900}" "$SCRIPT" "$dir" \
    > /dev/null 2>&1 < /dev/null &
  echo $! > "$dir/run/watchdog.pid"

  waited=0
  while :; do
    state=$(node_state "$dir")
    if [ "$state" = idle ]; then
      break
    fi
    if [ "$waited" -ge $((timeout * 2)) ]; then
      echo "start_local_slurm: the node is not idle after ${timeout} s (sinfo says '${state:-nothing}')" >&2
      dump_logs "$dir"
      stop "$dir" keep-logs
      exit 4
    fi
    sleep 0.5
    waited=$((waited + 1))
  done
  echo "start_local_slurm: one-node Slurm up in $dir (slurmctld port $ctld_port, slurmd port $slurmd_port)" >&2
  echo "SLURM_CONF=$dir/slurm.conf"
}

# True while process $1 exists and is one of this cluster's (its command
# line names the cluster's directory $2), so a stale pid file never leads to
# signalling an unrelated process.
alive() {
  [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# True while any of the processes $2... of the cluster in $1 exists.
any_alive() {
  local dir=$1 pid
  shift
  for pid in "$@"; do
    alive "$pid" "$dir" && return 0
  done
  return 1
}

stop() {
  local dir=$1 keep=${2:-} name pid waited pids
  [ -d "$dir" ] || return 0
  dir=$(readlink -f "$dir")
  if [ -f "$dir/slurm.conf" ] && [ -f "$dir/run/slurmctld.pid" ] && alive "$(cat "$dir/run/slurmctld.pid")" "$dir"; then
    # Running jobs outlive slurmd: cancel them first and give them a moment.
    SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --user="$(id -un)" >/dev/null 2>&1
    for waited in $(seq 1 20); do
      [ -z "$(SLURM_CONF="$dir/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  # Term them all at once (each takes a second or two to shut down), then
  # kill what is still there after 10 s.
  # Each daemon's pid is in the file launch() wrote and in the daemon's own.
  pids=()
  for name in $DAEMONS; do
    while read -r pid; do
      alive "$pid" "$dir" && kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
    done < <(cat "$dir/run/$name.pid" "$dir/run/$name.daemon.pid" 2>/dev/null | sort -u)
  done
  for waited in $(seq 1 100); do
    any_alive "$dir" "${pids[@]}" || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    alive "$pid" "$dir" && kill -KILL "$pid" 2>/dev/null
  done
  pid=$(cat "$dir/run/watchdog.pid" 2>/dev/null)
  if [ -n "$pid" ] && [ "$pid" != "$$" ] && alive "$pid" "$dir"; then
    kill -TERM -- "-$pid" 2>/dev/null # the watchdog and its sleep
  fi
  if [ "$keep" != keep-logs ]; then
    rm -rf "$dir"
  fi
  return 0
}

case "${1:-}" in
  start)
    if [ $# -lt 2 ] || [ $# -gt 3 ]; then
      usage
    fi
    start "$2" "${3:-30}"
    ;;
  stop)
    if [ $# -ne 2 ]; then
      usage
    fi
    stop "$2"
    ;;
  *)
    usage
    ;;
esac
