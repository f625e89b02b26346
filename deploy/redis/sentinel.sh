#!/bin/sh
# One Sentinel of the set, for compose.yaml and k8s/redis.yaml (same text in its ConfigMap).
#   SENTINEL_ANNOUNCE_HOST   this Sentinel's name as the others and the clients reach it
#   REDIS_INITIAL_MASTER     the master to monitor on the very first start
#   REDIS_MASTER_NAME        the set's name (default parley): Parley's REDIS_SENTINEL_MASTER
#   SENTINEL_QUORUM          Sentinels that must agree the master is down (default 2 of 3)
#   REDIS_PASSWORD           the Redis set's password; empty: none
#   REDIS_SENTINEL_PASSWORD  this Sentinel's own password (clients and the other Sentinels); empty: none
# Sentinel rewrites its config file as the set changes (failovers, known replicas and Sentinels),
# so the file lives in the data volume and is written only on the first start (to change a
# password or the quorum later, delete /data/sentinel.conf and restart).
set -eu
name="${REDIS_MASTER_NAME:-parley}"
conf=/data/sentinel.conf
if [ ! -f "$conf" ]; then
  umask 077
  cat >"$conf" <<CONF
port 26379
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $SENTINEL_ANNOUNCE_HOST
sentinel monitor $name $REDIS_INITIAL_MASTER 6379 ${SENTINEL_QUORUM:-2}
sentinel down-after-milliseconds $name 5000
sentinel failover-timeout $name 30000
sentinel parallel-syncs $name 1
CONF
  if [ -n "${REDIS_PASSWORD:-}" ]; then
    printf 'sentinel auth-pass %s "%s"\n' "$name" "$REDIS_PASSWORD" >>"$conf"
  fi
  if [ -n "${REDIS_SENTINEL_PASSWORD:-}" ]; then
    printf 'requirepass "%s"\nsentinel sentinel-pass "%s"\n' "$REDIS_SENTINEL_PASSWORD" \
      "$REDIS_SENTINEL_PASSWORD" >>"$conf"
  fi
fi
exec redis-sentinel "$conf"
