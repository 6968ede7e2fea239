# scripts/lib/replica.sh — a PostgreSQL streaming replica of the primary that
# start_pg started (with SLOTD_PG_REPLICA=1), for --db-read. Sourced after
# scripts/lib/postgres.sh; its cleanup stops the replica too, since the
# replica's data lives in the primary's temp dir.
#
#   SLOTD_PG_REPLICA=1 start_pg && start_replica
#   → SLOTD_TEST_POSTGRES (primary) and SLOTD_TEST_POSTGRES_REPLICA (standby)
start_replica() {
	local pport rport
	pport="${SLOTD_TEST_POSTGRES##*127.0.0.1:}"
	pport="${pport%%/*}"
	if ! (cd "$PGTMP" && "${PG_AS[@]}" "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres \
		-D "$PGTMP/replica" -R -X stream --no-sync >"$PGTMP/basebackup.log" 2>&1); then
		cat "$PGTMP/basebackup.log" >&2
		die "pg_basebackup failed"
	fi
	rport="$(free_port)" || die "found no free TCP port"
	"${PG_AS[@]}" tee -a "$PGTMP/replica/postgresql.conf" >/dev/null <<-EOF
		unix_socket_directories = '$PGTMP/sock'
		hot_standby = on
	EOF
	: >"$PGTMP/replica.log"
	[[ -n "${PG_AS[*]}" ]] && chown postgres: "$PGTMP/replica.log"
	if ! (cd "$PGTMP" && "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PGTMP/replica" -l "$PGTMP/replica.log" \
		-o "-p $rport" -w -t 60 start >/dev/null 2>&1); then
		cat "$PGTMP/replica.log" >&2
		die "replica start failed"
	fi
	REPLICA_DATA="$PGTMP/replica"
	export SLOTD_TEST_POSTGRES_REPLICA="postgres://postgres@127.0.0.1:$rport/postgres?sslmode=disable"
	log "PostgreSQL streaming replica on 127.0.0.1:$rport"
}

# stop_replica stops the standby (the primary's cleanup deletes its files).
stop_replica() {
	if [[ -n "${REPLICA_DATA:-}" && -f "$REPLICA_DATA/postmaster.pid" ]]; then
		(cd "$PGTMP" && "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$REPLICA_DATA" -m immediate -w -t 30 stop >/dev/null 2>&1)
	fi
}
