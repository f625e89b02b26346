#!/bin/sh
# One Redis of the Sentinel-managed set, for compose.yaml and k8s/redis.yaml (its ConfigMap holds
# this same text; test/unit/deploy-manifests.test.ts keeps them equal).
#   REDIS_ANNOUNCE_HOST      this instance's name as the others reach it (service or pod DNS name)
#   REDIS_INITIAL_MASTER     the master on the very first start, before any Sentinel knows one
#   REDIS_SENTINEL_HOSTS     the Sentinels (host:port, space-separated), asked who the master is now
#   REDIS_MASTER_NAME        the set's name at the Sentinels (default parley)
#   REDIS_PASSWORD           this set's password (requirepass and masterauth); empty: none
#   REDIS_SENTINEL_PASSWORD  the Sentinels' password; empty: none
# After a failover the master is whichever instance the Sentinels promoted: a restarted instance
# asks them first, so it comes back as a replica of the current master instead of a second master.
set -eu
name="${REDIS_MASTER_NAME:-parley}"
master=""
for sentinel in ${REDIS_SENTINEL_HOSTS:-}; do
  answer="$(REDISCLI_AUTH="${REDIS_SENTINEL_PASSWORD:-}" timeout 3 redis-cli -h "${sentinel%:*}" \
    -p "${sentinel##*:}" --raw sentinel get-master-addr-by-name "$name" 2>/dev/null | head -n 1 || true)"
  case "$answer" in
    "" | *[!A-Za-z0-9.:-]*) ;;
    *) master="$answer" && break ;;
  esac
done
[ -n "$master" ] || master="$REDIS_INITIAL_MASTER"
# The password goes in a file only this user reads, not on the command line.
umask 077
conf=/tmp/redis.conf
: >"$conf"
if [ -n "${REDIS_PASSWORD:-}" ]; then
  printf 'requirepass "%s"\nmasterauth "%s"\n' "$REDIS_PASSWORD" "$REDIS_PASSWORD" >>"$conf"
fi
set -- --appendonly yes --dir /data --replica-announce-ip "$REDIS_ANNOUNCE_HOST"
if [ "$master" != "$REDIS_ANNOUNCE_HOST" ]; then
  set -- "$@" --replicaof "$master" 6379
fi
echo "redis.sh: $REDIS_ANNOUNCE_HOST starts with master $master"
exec redis-server "$conf" "$@"
