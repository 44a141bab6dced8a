#!/usr/bin/env bash
# A one-node Slurm cluster of a test's own in a folder: munged, slurmctld and slurmd with a
# generated slurm.conf, their own ports, sockets, state and logs in DIR; no GPUs configured.
#   slurm_cluster.sh up DIR CTLD_PORT SLURMD_PORT   starts it (exit 0 once the node is idle)
#   slurm_cluster.sh up DIR CTLD_PORT SLURMD_PORT NS0=ADDR0 NS1=ADDR1 ...
#                                                   one node per network namespace (nodes stn0,
#                                                   stn1, ... at those addresses; slurmctld in the
#                                                   first; commands must run in NS0 to reach it)
#   slurm_cluster.sh down DIR                       stops the daemons it started (by pid file)
# Commands then need SLURM_CONF=DIR/slurm.conf. Needs root (slurmd runs the jobs' steps).
set -euo pipefail
cmd="$1"; dir="$2"
if [ "$cmd" = down ]; then
  pids=()
  for pid in "$dir"/slurmd*.pid "$dir"/slurmctld.pid "$dir"/munge/munged.pid; do
    [ -f "$pid" ] && pids+=("$(cat "$pid")")
  done
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null || true
  # Wait for them to end (at most 10 s), so that the caller can remove the folder they write.
  for _ in $(seq 1 100); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  exit 0
fi
ctld_port="$3"; slurmd_port="$4"
shift 4
nodes=("$@")  # NS=ADDR each; none: one node on this machine
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munge.seed" --force
host="$(hostname)"
cpus="$(nproc)"
ctld_host="$host"
node_lines="NodeName=$host CPUs=$cpus State=UNKNOWN"
spool="$dir/spool"
if [ ${#nodes[@]} -gt 0 ]; then
  ctld_host="$host(${nodes[0]#*=})"
  node_lines=""
  for k in "${!nodes[@]}"; do
    node_lines+="NodeName=stn$k NodeAddr=${nodes[$k]#*=} CPUs=$cpus State=UNKNOWN"$'\n'
    mkdir -p "$dir/spoolstn$k"
  done
  spool="$dir/spool%n"
fi
cat >"$dir/slurm.conf" <<CONF
ClusterName=stavetest
SlurmctldHost=$ctld_host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SchedulerType=sched/builtin
KillWait=30
$node_lines
PartitionName=stave Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF="$dir/slurm.conf"
in_ns() {  # NS command...: the network namespace only (ip netns exec would hide the cgroups)
  if [ -n "$1" ]; then ns="$1"; shift; nsenter --net="/var/run/netns/$ns" "$@"; else shift; "$@"; fi
}
first_ns=""
if [ ${#nodes[@]} -gt 0 ]; then
  first_ns="${nodes[0]%%=*}"
  in_ns "$first_ns" slurmctld -f "$SLURM_CONF"
  for k in "${!nodes[@]}"; do in_ns "${nodes[$k]%%=*}" slurmd -f "$SLURM_CONF" -N "stn$k"; done
else
  slurmctld -f "$SLURM_CONF"
  slurmd -f "$SLURM_CONF"
fi
want=$(( ${#nodes[@]} > 0 ? ${#nodes[@]} : 1 ))
for _ in $(seq 1 60); do
  idle=$(in_ns "$first_ns" sinfo -h -N -o %T 2>/dev/null | grep -c idle || true)
  if [ "$idle" -ge "$want" ]; then exit 0; fi
  sleep 0.5
done
echo "slurm_cluster: the nodes did not become idle; see the logs in $dir" >&2
exit 1
