#!/usr/bin/env bash
# A one-node Slurm cluster of a test's own in a folder: munged, slurmctld and slurmd with a
# generated slurm.conf, their own ports, sockets, state and logs in DIR; no GPUs configured.
#   slurm_cluster.sh up DIR CTLD_PORT SLURMD_PORT   starts it (exit 0 once the node is idle)
#   slurm_cluster.sh down DIR                       stops the daemons it started (by pid file)
# Commands then need SLURM_CONF=DIR/slurm.conf. Needs root (slurmd runs the jobs' steps).
set -euo pipefail
cmd="$1"; dir="$2"
if [ "$cmd" = down ]; then
  for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munge/munged.pid; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  exit 0
fi
ctld_port="$3"; slurmd_port="$4"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munge.seed" --force
host="$(hostname)"
cpus="$(nproc)"
cat >"$dir/slurm.conf" <<CONF
ClusterName=stavetest
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=stave Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 60); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then exit 0; fi
  sleep 0.5
done
echo "slurm_cluster: the node did not become idle; see $dir/slurmctld.log and $dir/slurmd.log" >&2
exit 1
